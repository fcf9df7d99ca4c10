#pragma once
// What `grader batch` is asked to do, as its command line said it: the
// embedded engine (batch/engine.hpp) and the Slurm one (slurm/engine.hpp)
// both read these.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// `grader batch --engine slurm`: how the job array is asked for (slurm/engine.hpp).
struct slurm_batch_options {
    std::string partition, account, qos;   // empty: the cluster's defaults
    std::vector<std::string> sbatch_options;  // passed through: "--constraint=h100"
    int throttle = 0;                      // array tasks running at once; 0: no limit
    int chunk_size = 8;                    // submissions per array task
    int gpus_per_task = 1;                 // --gres=gpu:N; 0: none
    int cpus_per_task = 4;                 // the task's builders
    int time_limit_minutes = 0;            // per task; 0: the worst case from the lesson's limits
    bool wait = true;                      // follow the job until it ends (--no-wait: submit and return)
    bool dry_run = false;                  // write and print the script, submit nothing
};

struct batch_args {
    std::string lesson;                           // or "collect": then SUBMISSIONS is a batch folder
    std::filesystem::path submissions;            // folders, Classroom clones or a Gradescope export
    std::optional<std::filesystem::path> output;  // the batch's folder (default: ./batch-LESSON)
    std::string kind = "auto";                    // auto, folders, classroom, gradescope
    bool force = false;                           // regrade what is already graded
    int jobs = 0;                                 // submissions built at once; 0: half the CPUs
    int per_gpu = 0;                              // submissions graded at once on each GPU; 0: from the CPUs (graders_for)
    bool pause_sharers = false;                   // --pause: timed tests pause the sharers instead of waiting for them
    std::optional<unsigned long long> seed;
    int timeout_s = 60;                           // per test
    int build_timeout_s = 300;                    // per submission
    std::string memory = "16G";                   // per test program and per build (RLIMIT_DATA)
    // Grade where bubblewrap cannot run, students' code then running with the
    // instructor's rights; without it such a batch refuses (run/sandbox.hpp).
    bool no_sandbox = false;
    // The GPUs that will grade, as the instructor declares them ("sm_80"):
    // checked against the build's architectures before anything is graded or
    // submitted (checkout/architectures.hpp). Slurm: instead of sinfo's word.
    std::vector<std::string> gpu_archs;
    bool build = true;                            // build the course's own targets first
    std::optional<std::filesystem::path> scratch; // where submissions are built (default: $TMPDIR)
    bool keep_scratch = false;
    std::string chunk;                            // "i/N": only the i-th of N equal parts (a cluster task)
    bool report = true;                           // write the gradebook and the class report
    std::string similarity = "50%";               // flag pairs that share this much of one side's own code
                                                  // (batch/similarity.hpp); "off": compare nothing
    std::optional<std::filesystem::path> only_students;  // grade only these (a JSON list; a cluster job's)
    std::string engine = "local";                 // local: this machine; slurm: a job array
    // Grades back to students (batch/lms_export.hpp): the roster that maps
    // each student to the LMS's identifier (batch/roster.hpp), and the
    // assignment's column in the LMS files (empty: the lesson's id). Both are
    // kept in the batch folder for later runs.
    std::optional<std::filesystem::path> roster;
    std::string lms_column;
    slurm_batch_options slurm;
};
}  // namespace grader
