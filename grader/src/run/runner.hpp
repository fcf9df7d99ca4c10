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
//
// The pieces, one file each: run_options.hpp (the setup and its limits),
// test_list.hpp (what is graded), test_processes.hpp (starting the program,
// reading its events, time limits), test_events.hpp (what an event may say),
// concurrent_judge.hpp (claims and the judge), runner.cpp (the verdicts),
// explain.cpp (the evidence for failures).
#include <set>
#include <string>
#include <vector>

#include "report/report.hpp"
#include "run/run_options.hpp"
#include "run/test_events.hpp"
#include "run/test_list.hpp"

namespace grader {

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
// About how long its sanitizer reruns would take, in the tests' own seconds:
// the judged time of each test it would rerun (a rerun is that test slowed
// 10 to 100 times by the tool). A batch explains the costliest first, so that
// the longest reruns do not start last and end the batch alone.
double explaining_cost(const run_options& options, const graded_run& run);

}  // namespace grader
