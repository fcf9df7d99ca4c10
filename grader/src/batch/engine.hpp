#pragma once
// `grader batch`'s embedded engine: grades a class's submissions on this
// machine. Two stages run side by side:
//   - builders (CPU): each takes the next submission, writes it into a
//     scratch folder of its own and builds it there, sandboxed
//     (batch/submission_build.hpp);
//   - graders (GPU): a few per visible GPU take built submissions and grade
//     them on that GPU (CUDA_VISIBLE_DEVICES), sandboxed, as `grader run`
//     would. Correctness tests of several submissions share a GPU; a timed
//     test has its GPU alone (gpu_gate.hpp), so a score never depends on what
//     else the batch was doing.
// A submission's failures are explained (compute-sanitizer, Nsight Compute)
// by its GPU's explainers, a few threads beside the graders that share the
// GPU between timed tests (explanation_queue.hpp). Each finished
// submission is handed to `on_result` at once (the caller stores it), so
// stopping (Ctrl-C) loses only what was in flight, and what was waiting to be
// explained: a rerun grades those again.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batch/result.hpp"
#include "batch/submission_build.hpp"
#include "batch/submissions.hpp"
#include "batch/timeline.hpp"
#include "checkout/manifest.hpp"
#include "run/grade.hpp"
#include "run/grading_needs.hpp"
#include "run/runner.hpp"
#include "system/user_error.hpp"

namespace grader {

namespace fs = std::filesystem;

struct gpu_slot {
    int ordinal = 0;   // as this process counts them
    std::string id;    // what CUDA_VISIBLE_DEVICES names it by in a child
    std::string name;  // "NVIDIA H200 (sm_90)"
    int compute_capability = 0;  // 90; 0 where the query failed
};

// The GPUs this process may use, each with the id a child process must be
// given to see exactly that one (CUDA_VISIBLE_DEVICES may already narrow
// them, and may name them by UUID). Empty without a GPU.
std::vector<gpu_slot> visible_gpus();

// Why this machine cannot grade a batch at all, thrown before anything is
// graded: no sandbox (batch_sandbox), what the lesson's tests need
// (refuse_without_grading_needs), a GPU the build has no code for. `lacks`
// names what is missing in a few words ("compute-sanitizer, ncu (Nsight
// Compute)") where the whole message, fixes included, has no room (a
// gradebook note); a Slurm task leaves both for the batch that submitted it
// (slurm/task_refusal.hpp).
struct grading_refused : user_error {
    grading_refused(std::string lacks, const std::string& message)
        : user_error(build_error, message), lacks(std::move(lacks)) {}
    std::string lacks;
};

// The batch's sandbox (both engines): bubblewrap where it runs. Where it
// cannot, a batch fails closed: a grading_refused naming why and the fixes
// (run/sandbox.hpp, sandbox_refusal), before anything is built or graded,
// unless `no_sandbox` (--no-sandbox): then none, and every output says so.
std::optional<fs::path> batch_sandbox(bool no_sandbox);

// The rest of what the batch's `tests` need (run/grading_needs.hpp, as
// `grader doctor --grading` lists it): libelf, the GPU recorder and
// course-threads-only, and where `gpus_here` compute-sanitizer and ncu.
// Where one is missing the batch fails closed as without the sandbox: a
// grading_refused naming each and its fix, before any submission is graded.
// `facts`: observe_grading_needs(&m, grading_lookups::of_this_machine()).
void refuse_without_grading_needs(const grading_facts& facts, const std::vector<listed_test>& tests, bool gpus_here,
                                  bool no_sandbox);

// --gpu-arch's words ("sm_80", "8.0", "80") as compute capabilities; a
// user_error for one it cannot read.
std::vector<int> declared_gpu_architectures(const std::vector<std::string>& declared);

// Why the build `m` cannot grade on some of these GPUs (the GPUs here, and
// those the instructor declared), one paragraph each
// (checkout/architectures.hpp); empty when it can grade on every one.
std::string gpus_the_build_cannot_run(const manifest& m, const std::vector<gpu_slot>& gpus,
                                      const std::vector<int>& declared);

struct batch_job {
    const submission* work = nullptr;
    std::string key;  // result_cache content key
};

struct engine_settings {
    int builders = 1;                  // submissions built at once
    int graders_per_gpu = 2;           // submissions graded at once on each GPU
    // A timed test pauses the sharers' GPU work rather than wait for them to
    // leave, where the driver can (gpu_pause.hpp); false: it always waits.
    bool pause_sharers = false;
    std::vector<gpu_slot> gpus;        // empty: one grader without a GPU (GPU tests are skipped)
    fs::path scratch_root;             // one folder per submission in here, removed once graded
    bool keep_scratch = false;         // leave them (to look at a build)
    std::optional<fs::path> bwrap;     // the sandbox; nullopt: none (said in every report)
    std::vector<fs::path> hidden;      // not visible to any student's build or tests
    build_limits build;
    grade_options grading;             // seed, limits, sandbox; gate and device are set per GPU
    std::vector<listed_test> graded_tests;  // what a submission that did not compile scores zero on
    fs::path logs_dir;                 // build logs of failed builds are kept here (<student>.build.log)
};

struct engine_stats {
    double wall_s = 0;
    double started_unix = 0;   // when the timeline's 0 was, in seconds since 1970 (to line up other clocks)
    double build_s = 0;        // summed over submissions (they overlap)
    double grade_s = 0;        // summed over submissions (they overlap), explaining included
    double evidence_s = 0;     // of grade_s: explaining failures (the sanitizer's reruns, the profiles)
    double gpu_alone_s = 0;    // the GPUs' time held alone (timed tests, profiles), summed over GPUs
    double gpu_shared_s = 0;   // the GPUs' time used by sharers (correctness tests, the sanitizer)
    double gpu_held_up_s = 0;  // of gpu_shared_s: while a timed run waited for the sharers to leave
    double paused_s = 0;       // runs' time paused while a timed test had the GPU alone, summed over runs
    bool pausing = false;      // whether sharers could be paused here (driver 570 or newer)
    int graded = 0;
    std::vector<submission_timeline> timeline;  // who did what when
};

// How many judged submissions per grader may wait to be explained before
// the graders wait too (each keeps its scratch folder until explained).
inline constexpr int explanations_waiting_per_grader = 8;
// How many of a GPU's submissions are explained at once while its graders
// work (explanation_queue.hpp); once they are done, theirs too.
inline constexpr int explainers_per_gpu = 3;
// How many submissions each GPU grades at once by default: about three CPUs
// each (the student's program, the judge, and a tool's rerun keep one busy),
// at least 2 and at most 5. On an H200 with 16 CPUs, lesson07's class of 20
// took 107 s with 5 and 126 s with 3; lesson01's 42 s and 45 s.
int graders_for(int cpus, int gpus);
// Threads per place to work (work_places.hpp): a run waiting for the GPU
// alone lends its place, and another thread takes it.
inline constexpr int threads_per_work_place = 3;

// Builds and grades `jobs`; calls on_result (from any thread, one call at a
// time) as each finishes, and on_progress when something starts or ends.
// Once `stop` is set no new submission starts; those being judged finish, and
// those waiting to be explained are left for a rerun.
engine_stats run_local_engine(const manifest& m, const lesson_info& lesson, const submission_recipe& recipe,
                              const std::vector<batch_job>& jobs, const engine_settings& settings,
                              const std::function<void(const batch_job&, batch_result)>& on_result,
                              const std::function<void(const std::string& event)>& on_progress,
                              const std::atomic<bool>& stop);

}  // namespace grader
