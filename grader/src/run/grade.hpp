#pragma once
// Grading one build variant of a lesson (exercise, solution or a mutant):
// what `grader run` and `grader verify` share.
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checkout/manifest.hpp"
#include "report/report.hpp"
#include "run/gpu_gate.hpp"
#include "run/runner.hpp"

namespace grader {

struct grade_options {
    unsigned long long seed = 0;
    std::chrono::seconds per_test_limit{60};
    test_time_limits test_limits;   // tighter limits for some tests (`grader batch`)
    std::vector<std::string> only;  // test ids; empty: all
    bool sandbox = false;           // a graded run: hide the course's secrets (sandbox.hpp)
    // A graded run told to go without the sandbox (--no-sandbox, where
    // bubblewrap cannot run): nothing is hidden, and the report says so.
    bool no_sandbox = false;
    // compute-sanitizer's evidence (sanitizer_evidence.hpp): for failed GPU
    // tests, or (sanitize_every_test, `grader run --sanitize`) for every one.
    bool sanitize_failures = true;
    bool sanitize_every_test = false;
    // Nsight Compute's evidence (profile_evidence.hpp): for slow kernels, or
    // (profile_every_test, `grader run --profile`) a table for every speed test.
    bool profile_failures = true;
    bool profile_every_test = false;
    step_timings* timings = nullptr;  // `grader run --timings`: where the seconds went

    // What `grader batch` adds:
    std::optional<std::filesystem::path> bwrap;      // found once for the batch (else looked up per run)
    std::vector<std::filesystem::path> also_hidden;  // other students' work, the results folder
    gpu_gate* gate = nullptr;                        // the GPU is shared with other runs
    work_places* places = nullptr;                   // the judging's place to work on it (work_places.hpp)
    int device = -1;                                 // the GPU to grade on, as this process counts them; -1: as given
    std::string device_id;                           // and as a child must be told (CUDA_VISIBLE_DEVICES)
    long long max_data_bytes = 0, max_processes = 0; // limits on the test program
};

// A test program to grade: the graded tests linked with the code under test.
struct graded_program {
    std::string variant;             // how the report names it: "exercise", "submission"
    std::filesystem::path tests;     // the program
    std::filesystem::path library;   // the code under test, compiled (lesson07 reads its kernels)
    std::filesystem::path log_dir;   // its logs and evidence
};

// The build targets grading a variant needs: its tests, and the judge's
// (the solution's tests, which decide every verdict).
std::vector<std::string> targets_for_grading(const lesson_info& lesson, const std::string& variant);

// Runs the variant's (already built) graded tests and fills in the device.
lesson_report grade_variant(const manifest& m, const lesson_info& lesson, const std::string& variant,
                            const grade_options& options);

// The same for any program built from the lesson's graded tests (a batch's
// submission); the judge is the lesson's solution build.
lesson_report grade_program(const manifest& m, const lesson_info& lesson, const graded_program& program,
                            const grade_options& options);

// The grader's own look at the GPU a run is graded on, through the CUDA
// runtime (about 0.15 s on an H200: the runtime's start).
struct device_look {
    std::string summary;        // the report's name of the GPU
    std::string no_gpu_reason;  // why there is none
    std::string pci_bus_id;     // empty without one
};

// grade_program in its two steps: the verdicts, then what compute-sanitizer
// and Nsight Compute find about the failures (runner.hpp). A batch explains
// later, once no timed test of another submission waits for the GPU.
class program_grading {
public:
    program_grading(const manifest& m, const lesson_info& lesson, const graded_program& program,
                    const grade_options& options);
    void judge();                           // the verdicts
    bool has_failures_to_explain() const;   // whether explain() would rerun anything
    bool explaining_needs_the_gpu_alone() const;  // whether it would profile
    double explaining_cost() const;         // runner.hpp: the costliest are explained first
    // Messages and notes; no verdict changes. `places`: where the explaining
    // lends its place while a profile waits for the GPU alone (the batch's
    // explainers have places of their own); null: the judging's.
    void explain(work_places* places = nullptr);
    lesson_report take_report();            // once, after judge() (and explain())

private:
    // Runs a step; what stops it becomes an error that names the program.
    void saying_what_could_not_run(const std::function<void()>& step) const;

    std::filesystem::path program_;
    lesson_report report_;
    run_options run_;
    graded_run graded_;
    // The look at the GPU, where it runs beside the tests (the report waits for it).
    std::future<device_look> device_look_;
};

}  // namespace grader
