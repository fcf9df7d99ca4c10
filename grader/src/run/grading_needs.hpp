#pragma once
// What a graded run and a batch need beyond a GPU and its driver, each with
// its fix: `grader doctor --grading` lists them all, and `grader batch`
// refuses before grading where its lesson needs one that is missing (as it
// refuses without the sandbox: batch/engine.hpp).
//
//   the sandbox         bubblewrap, and able to run a sandbox here (run/sandbox.hpp)
//   compute-sanitizer   explains failed GPU tests (evidence/sanitizer.hpp)
//   ncu                 Nsight Compute: explains slow kernels, and may read the
//                       GPU's counters (evidence/kernel_profile.hpp)
//   libelf              the grader built with it: the judge times speed tests by
//                       replaying the student's kernels (evidence/device_code.hpp)
//   the GPU recorder    CUPTI: the record of what each timed call asked of the
//                       GPU (the manifest's gpu_recorder)
//   course-threads-only libseccomp: graded runs refuse new processes
//                       (the manifest's threads_only_launcher, process_refusals.hpp)
//
// Observing and concluding are apart, as in `grader doctor`: the lookups are
// functions a test replaces (a grader "built without libelf", a machine
// without ncu), and the conclusions are plain functions of what was seen.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checkout/manifest.hpp"
#include "run/sandbox.hpp"
#include "run/test_list.hpp"

namespace grader {

// How each need is looked up. of_this_machine() looks at this machine and
// this grader; a test replaces one lookup with its own answer.
struct grading_lookups {
    std::function<bubblewrap_search()> bubblewrap;
    std::function<std::optional<std::filesystem::path>()> compute_sanitizer;
    std::function<std::optional<std::filesystem::path>()> ncu;
    std::function<bool()> reads_device_code;  // built with libelf
    std::function<bool()> refuses_processes;  // built with libseccomp
    // The driver lets only administrators read the GPU's performance counters
    // (RmProfilingAdminOnly in /proc/driver/nvidia/params) and this is not
    // one; nullopt where the driver does not say (no driver, WSL2).
    std::function<std::optional<bool>()> counters_for_admins_only;

    static grading_lookups of_this_machine();
};

// What the lookups found, and what the build holds.
struct grading_facts {
    bubblewrap_search bubblewrap;
    std::optional<std::filesystem::path> compute_sanitizer, ncu;
    std::optional<bool> counters_for_admins_only;
    bool reads_device_code = false;
    bool refuses_processes = false;
    bool build_known = false;  // a manifest was read: the recorder's and the launcher's facts mean something
    std::filesystem::path gpu_recorder;           // the manifest's; empty where CUPTI was not found
    bool gpu_recorder_built = false;              // and the file is there
    std::filesystem::path threads_only_launcher;  // the manifest's; empty where libseccomp was not found
    bool threads_only_launcher_built = false;
    std::string toolkit_version;  // the build's nvcc ("13.0.88"): the fixes name its packages
    std::filesystem::path build_dir;  // the fixes' rebuild commands name it
    bool wsl = false;  // WSL2 (the caller's to say): the counters are allowed in Windows
};

// `m`: the build; nullptr where there is none (the build's needs are then unknown).
grading_facts observe_grading_needs(const manifest* m, const grading_lookups& lookups);

enum class grading_need { sandbox, compute_sanitizer, ncu, libelf, gpu_recorder, threads_only };

// "bubblewrap (the sandbox)", "libelf", ...: how a refusal names it.
const char* to_string(grading_need need);

struct grading_check {
    grading_need need;
    bool ok = false;
    std::string what;  // one line: what was found, or what is missing and what that costs
    std::string fix;   // where !ok: what to do
};

// One check per need, in the order above.
std::vector<grading_check> grading_checks(const grading_facts& facts);

// The failed checks a batch of `tests` cannot grade without, beside the
// sandbox (which batch_sandbox refuses first): libelf where a test is timed
// by the judge's replay; the recorder where a test is timed; the launcher
// unless `no_sandbox` (the grades then say NOT SANDBOXED anyway);
// compute-sanitizer (any GPU test) and ncu (a test of kernel speed) only
// where `gpus_here`: without a GPU no GPU test runs, and none is explained.
std::vector<grading_check> missing_for_batch(const grading_facts& facts, const std::vector<listed_test>& tests,
                                             bool gpus_here, bool no_sandbox);

// The batch's refusal: each missing need, its cost and its fix, and that
// nothing was graded. Empty `missing`: empty text.
std::string grading_refusal(const std::vector<grading_check>& missing);

}  // namespace grader
