#pragma once
// Slurm through its own commands: sbatch submits the job array, squeue and
// sacct say what became of each array task, scancel stops it. The parsing is
// kept apart from the running, so the host tests check it on outputs captured
// from a real Slurm (grader/tests/self/test_slurm_jobs.cpp).
//
// Where the states come from. The controller remembers a finished job for
// MinJobAge seconds (300 by default), and `squeue --states=all` reports every
// task it remembers, finished ones included, with Slurm's reason and restart
// count: the freshest source, and the only one on a cluster without
// accounting. sacct reads the accounting database (slurmdbd), which keeps
// jobs for good: it answers for tasks the controller has forgotten (after
// `--no-wait`, a collect hours later). A cluster without slurmdbd answers
// sacct with "Slurm accounting storage is disabled"; then squeue alone is
// asked. (`sacct --completion`, which reads JobCompType=jobcomp/filetxt, is no
// substitute: in Slurm 22.05 it knows only the tasks' raw job ids, not which
// array and index they belong to.)
//
// Requeue, as observed on Slurm 22.05: with --requeue Slurm itself runs a
// task again after a node failure or preemption (after AuthInfo's
// cred_expire, 120 s by default; SLURM_RESTART_COUNT counts the runs), but a
// task killed at its time limit (TIMEOUT), for memory (OUT_OF_MEMORY) or by
// scancel (CANCELLED) ends for good. The engine resubmits those itself.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

// A Slurm command failed, or answered something the grader cannot read. The
// message names the command and quotes Slurm.
struct slurm_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One array task, as Slurm last reported it.
struct slurm_task {
    int index = -1;         // the array task's index (SLURM_ARRAY_TASK_ID)
    std::string state;      // Slurm's word: "PENDING", "COMPLETED", "TIMEOUT" ("CANCELLED by 0" -> "CANCELLED")
    std::string reason;     // why it waits or ended, in Slurm's words ("BeginTime", "TimeLimit"); may be empty
    std::string exit_code;  // "code:signal" as sacct writes it: "0:0", "3:0", "0:15" (SIGTERM)
    std::string elapsed;    // how long it ran, as Slurm writes it ("1:21", "00:01:21")
    std::string node;       // where it ran or runs; empty while pending
    int restarts = 0;       // how often Slurm requeued it (squeue knows; sacct does not, and says 0)
    std::string source;     // "squeue" or "sacct": which command said so
};

// What a task's state means for its chunk of submissions.
enum class task_verdict {
    waiting,  // not over: PENDING, RUNNING, COMPLETING, REQUEUED, SUSPENDED, ...
    done,     // COMPLETED: the chunk is graded; its results are in the results folder
    killed,   // Slurm stopped it (TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, CANCELLED,
              // BOOT_FAIL, DEADLINE, or a state this grader does not know): worth one more
              // run, then its submissions are "not graded: infrastructure"
    failed,   // FAILED: the grader's own command failed on the node (a missing mount, a
              // broken install); running it again would fail again: not graded
};

task_verdict verdict_of(std::string_view state);
const char* to_string(task_verdict verdict);

// Why a task ended the way it did, in words, with Slurm's own for reference:
// "killed at its time limit (TIMEOUT from squeue, reason TimeLimit)".
std::string describe_end(const slurm_task& task);

// --- Parsing: pure functions on the commands' outputs --------------------

// `sbatch --parsable` prints "123", or "123;cluster" on a multi-cluster
// setup, possibly after warnings. Returns "123"; throws slurm_error.
std::string parse_sbatch_output(std::string_view output);

// The squeue and sacct fields the parsers below read, in this order.
inline constexpr const char* squeue_fields = "JobArrayID:|,State:|,Reason:|,exit_code:|,TimeUsed:|,NodeList:|,RestartCnt:|";
inline constexpr const char* sacct_fields = "JobID,State,ExitCode,Elapsed,NodeList,Reason";

// Output of `squeue --noheader --array --states=all --jobs=ID --Format=<squeue_fields>`.
// A pending range ("123_[4-7%2]") becomes one pending task per index. Lines
// in any other shape (a warning) are skipped. Sorted by index.
std::vector<slurm_task> parse_squeue(std::string_view output);

// Output of `sacct --jobs=ID --allocations --parsable2 --noheader --format=<sacct_fields>`.
// Job steps ("123_4.batch") and lines in any other shape are skipped; a
// pending range becomes one task per index. Sorted by index.
std::vector<slurm_task> parse_sacct(std::string_view output);

// "[4-7%2]", "[1,3-5]", "4" -> the indices; throws slurm_error otherwise.
std::vector<int> parse_array_indices(std::string_view text);

// The GPU types of `sinfo --noheader --format=%G` (one line per group of
// nodes: "gpu:a100:4(S:0-1),shard:8", "gpu:4", "(null)"): the type of each
// gpu entry, lowercase, "" for one with none; each type once, in order.
std::vector<std::string> parse_sinfo_gpu_types(std::string_view output);

// The most memory a node has, in MiB, from `sinfo --noheader --format=%m`
// (one line per group of nodes: "24105", "515000+" where the group's nodes
// differ, the smallest then): nullopt where no line holds a number.
std::optional<long long> parse_sinfo_largest_memory_mib(std::string_view output);

// The compute capability of a GPU type's model, where the name holds one
// as a word of its own ("a100", "nvidia_a100-sxm4-80gb", "tesla_t4",
// "h100_nvl": 80, 80, 75, 90); nullopt where it names none the grader knows
// (an administrator's own name, a MIG slice "1g.10gb").
std::optional<int> compute_capability_of_gpu_type(std::string_view type);

// --- Running the commands ---------------------------------------------------

class slurm_commands {
public:
    // Each command's output is written to `work_dir`/<command>.out (kept:
    // what Slurm said last, for when something goes wrong). The commands
    // are found on PATH; SLURM_CONF and the like pass through to them.
    explicit slurm_commands(std::filesystem::path work_dir);

    // `sbatch --parsable SCRIPT`: the new job's id.
    std::string submit(const std::filesystem::path& script);

    // Every task of the job array that squeue or sacct knows, sorted by
    // index; squeue's word wins where both answer. A task neither knows is
    // absent (the controller forgot it and there is no accounting).
    std::vector<slurm_task> array_task_states(const std::string& job_id);

    // Whether any task of the job is still pending, running or completing.
    bool queued(const std::string& job_id);

    // `scancel ID`: the whole array. A job that already ended is no error.
    void cancel(const std::string& job_id);

    // `sinfo --noheader --format=%G` (of `partition`, where given): the
    // nodes' generic resources; nullopt where sinfo is missing or fails.
    std::optional<std::string> generic_resources(const std::string& partition);

    // `sinfo --noheader --format=%m` (of `partition`, where given): the
    // nodes' memory; nullopt where sinfo is missing or fails.
    std::optional<std::string> node_memory(const std::string& partition);

    // False once sacct said that this cluster keeps no accounting.
    bool accounting_available() const { return accounting_available_; }

private:
    struct answer {
        bool ok = false;     // exit code 0
        std::string output;  // stdout and stderr together
    };
    answer run(const std::string& program, std::vector<std::string> args);
    std::optional<std::vector<slurm_task>> sacct_states(const std::string& job_id);
    std::optional<std::string> sinfo_column(const std::string& format, const std::string& partition);

    std::filesystem::path work_dir_;
    bool accounting_available_ = true;
};

}  // namespace grader
