#pragma once
// Runs a lesson's graded tests and decides their verdicts without believing
// the program that runs the student's code (grader/TRUST.md):
//
//  1. The tests program (the graded tests linked with the code under test)
//     runs the tests in a separate process group with a time limit per test.
//     It streams an event as each test starts and ends, and records what each
//     test observed of the student's code as evidence. A crash or a hang costs
//     the test in flight; the rest run in a fresh process. Its events are
//     untrusted input: only a start for a test it was asked to run, then that
//     test's end, is taken; anything else is ignored and noted.
//  2. The judge (the same tests linked with the reference solution: no
//     student code) reruns every test the tests program says it passed, with
//     the student's recorded evidence in place of the reference's results.
//     A test passes only if the judge passes it.
// The judge also supplies the list of graded tests, points and titles.
#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpu_gate.hpp"
#include "report.hpp"
#include "sandbox.hpp"

namespace grader {

struct listed_test {
    std::string id, title, kind;
    int points = 0;
    bool gpu = true;
    bool alone = false;     // needs the GPU to itself (it measures time)
    bool profiled = false;  // its figures come from a profile of the student's kernels
    bool kernel_speed = false;  // it measures the student's kernels' speed (profile_evidence.hpp)
};

// A listed test as the report starts it: its name, points and kind, not yet run.
graded_test not_yet_run(const listed_test& listed);

// `<program> --graded-list`: the tests, with points and titles. Asked of the
// judge, which holds no student code.
std::vector<listed_test> list_graded_tests(const std::filesystem::path& program,
                                           const std::filesystem::path& log_dir);

struct run_options {
    std::filesystem::path tests_program;  // links the code under test: untrusted
    std::filesystem::path judge_program;  // the same tests against the reference solution
    std::filesystem::path log_dir;        // each process's output, and the evidence
    std::filesystem::path implementation_library;  // the student's compiled code, for checks that read it
    unsigned long long seed = 0;
    std::chrono::milliseconds per_test_limit{60'000};
    std::vector<std::string> only;        // test ids to run; empty: all
    // Where set, the tests program (never the judge) runs inside this
    // bubblewrap sandbox; the program and the evidence folder are shown in it.
    std::optional<std::filesystem::path> bwrap;
    sandbox_spec sandbox;
    // Profiled performance tests (GRADED_PERF_TEST_PROFILED) run under Nsight
    // Compute where it and cuobjdump are found (kernel_profile.hpp); false
    // never profiles (the figures are then the test program's own).
    bool profile_kernels = true;
    // Where set (`grader batch`), other runs share the GPU: this run's
    // correctness tests share it, and its timed tests wait until it is
    // theirs alone (gpu_gate.hpp).
    gpu_gate* gate = nullptr;
    // Added to the environment of every process of the run, the judge's
    // too (CUDA_VISIBLE_DEVICES: which GPU the run is graded on).
    std::vector<std::pair<std::string, std::string>> env;
    // Limits on the test program's processes (process.hpp); 0: none.
    long long max_data_bytes = 0;
    long long max_processes = 0;
    // Evidence from compute-sanitizer (sanitizer_evidence.hpp): failed GPU
    // correctness tests are rerun under it; with sanitize_every_test
    // (`grader run --sanitize`) every GPU correctness test is.
    bool sanitize_failures = true;
    bool sanitize_every_test = false;
    // Evidence from Nsight Compute (profile_evidence.hpp): failed tests of
    // the kernels' speed are profiled; with profile_every_test (`grader run
    // --profile`) every performance test is, and gets its table of kernels.
    bool profile_failures = true;
    bool profile_every_test = false;
};

struct graded_run {
    std::vector<graded_test> tests;
    std::vector<std::string> notes;  // what the grader ignored or could not do, said once each
    double evidence_seconds = 0;     // spent on the sanitizer's reruns and the profiles, after the verdicts
    std::set<std::string> kernel_speed;  // tests of the kernels' speed: what a profile can explain
};

// Runs the correctness tests; then, if the judge passed them all, the
// performance tests; then explains the failures (explain_failures).
graded_run run_graded_tests(const run_options& options);

// The same in two steps, for a batch that explains failures once no timed
// test is waiting for the GPU: the verdicts, then what compute-sanitizer and
// Nsight Compute find about them (messages and notes; no verdict changes).
graded_run judge_graded_tests(const run_options& options);
void explain_failures(const run_options& options, graded_run& run);
// Whether explain_failures would rerun anything (a GPU test failed, a speed
// test is to be profiled, or every test is to be checked): a batch explains
// the others at once.
bool has_failures_to_explain(const run_options& options, const graded_run& run);
// Whether it would profile (Nsight Compute, with the GPU alone): a batch
// explains these first, before the reruns that only share the GPU.
bool explaining_needs_the_gpu_alone(const run_options& options, const graded_run& run);

// Turns GoogleTest's wording into the report's: unwraps exceptions, folds
// SCOPED_TRACE context into one line.
std::string clean_message(const std::string& gtest_message);

// Limits on what a test program may send: longer event lines are dropped,
// and only this many messages of this many bytes are kept per test.
inline constexpr std::size_t max_event_line_bytes = 64 * 1024;
inline constexpr std::size_t max_messages_per_test = 20;
inline constexpr std::size_t max_message_bytes = 4096;
// Every file a test program writes (its log, its evidence) is capped here.
inline constexpr long long max_file_bytes = 1LL << 30;

}  // namespace grader
