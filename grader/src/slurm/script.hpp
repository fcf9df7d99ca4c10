#pragma once
// The sbatch script of `grader batch --engine slurm`: one job array, one array
// task per chunk of submissions. It is written to be read and, if need be,
// submitted by hand (`sbatch FILE`), so it says what it is, who made it and
// which paths the nodes must share, and quotes every argument for bash.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "system/shell_quote.hpp"

namespace grader {

// In slurm_job_spec::task_command, these stand for what only the node knows;
// the script writes a shell expansion in their place, everything else is
// quoted. The array task's index: "$SLURM_ARRAY_TASK_ID".
inline constexpr std::string_view slurm_task_token = "{task}";
// The node's local scratch folder: "${TMPDIR:-/tmp}" (Slurm sites usually
// point TMPDIR at a per-job folder on the node's own disk).
inline constexpr std::string_view slurm_scratch_token = "{scratch}";

struct slurm_job_spec {
    std::string job_name = "grader";
    int array_tasks = 1;                 // tasks 0 .. array_tasks - 1
    std::vector<int> array_indices;      // instead, exactly these tasks (--array=3,7): a rerun of some
    int throttle = 0;                    // at most this many running at once (--array=0-N%T); 0: no limit
    int time_limit_minutes = 60;         // per task (slurm_time_limit_minutes computes it)
    std::string gres;                    // "gpu:1"; empty: none (CPU-only lessons, tests)
    int cpus_per_task = 1;
    std::string memory;                  // "68G" (slurm_task_memory computes it); empty: the partition's default
    std::string partition, account, qos; // empty: the cluster's defaults
    std::vector<std::string> extra_options;  // passed through verbatim: "--constraint=h100"
    std::filesystem::path log_dir;       // each task's output: <log_dir>/<job>_<task>.out and .err
    bool requeue = true;                 // Slurm may run a task again after a node failure or preemption
    std::vector<std::filesystem::path> shared_paths;  // what every node must see, at the same path
    std::vector<std::string> task_command;            // argv, with slurm_task_token and slurm_scratch_token
    std::vector<std::pair<std::string, std::string>> environment;  // exported before the command
    std::string made_by;                 // the command line that wrote the script, for its header
};

// The whole script: "#!/bin/bash", the header, the #SBATCH lines, `set -euo
// pipefail`, a check that the shared paths are there, the exports and the
// command. Throws user_error (usage_error) for a spec sbatch would misread: an
// extra option that does not start with "--" or holds a line break, a value
// with spaces in an #SBATCH line, an invalid environment variable name.
std::string slurm_batch_script(const slurm_job_spec& spec);

// What one array task may need at worst, from which its time limit follows.
struct chunk_time_budget {
    int tests = 0;                              // graded tests in the lesson
    std::chrono::seconds per_test{60};          // each test's limit (the grader's --timeout)
    int submissions = 1;                        // submissions per array task (the chunk size)
    std::chrono::seconds build_per_submission{300};  // compiling one student's code
    std::chrono::seconds setup{600};            // the task's own start: configuring the course in scratch
    // Grading one submission, from measured times (measured_grading.hpp,
    // margin included), instead of every test running to its limit.
    std::optional<std::chrono::seconds> grading_per_submission;
};

// The task's time limit in whole minutes (Slurm counts in minutes), rounded
// up: each submission's grading, from measured times where there are some
// (three times the slowest run `grader verify` measured), otherwise every
// test running until its own limit; plus each build, plus the setup. A task
// Slurm kills at this limit is resubmitted by `grader batch collect`.
int slurm_time_limit_minutes(const chunk_time_budget& budget);

// What one array task may hold in memory at once, from which its --mem
// follows: each of its graders runs the student's test program and the
// judge side by side, each held to the per-program limit (`--memory`,
// RLIMIT_DATA), and the grader itself, a build and the tools need a little
// more. Slurm kills a task over its --mem; asking for less than the
// programs may use would make a program within its limit a dead task.
struct task_memory_budget {
    long long per_program_bytes = 16LL << 30;
    int graders = 2;                         // submissions graded at once in the task
    long long rest_bytes = 4LL << 30;        // the grader, a build, compute-sanitizer
};
// In whole GiB, rounded up, as sbatch takes it: "68G".
std::string slurm_task_memory(const task_memory_budget& budget);

}  // namespace grader
