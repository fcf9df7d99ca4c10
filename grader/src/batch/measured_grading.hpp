#pragma once
// How long grading one submission of a lesson takes, as `grader verify`
// measured it on a GPU: it grades the solution, the skeleton, every
// known-wrong version, cheat and textbook form as a student's, each timed
// whole (build excluded, explanations included). Kept in the course's build
// folder, where `grader batch --engine slurm` reads it to set its tasks'
// time limit from measured times rather than from every test running to its
// limit.
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "run/run_options.hpp"

namespace grader {

struct measured_grading {
    std::string lesson;
    std::string gpu;        // "NVIDIA H200 (sm_90)"
    std::string date;       // ISO 8601, UTC
    int timeout_s = 0;      // the per-test limit the runs had
    int runs = 0;           // graded runs measured
    double slowest_s = 0;   // the slowest of them
    std::string slowest;    // which one ("mutant naive_k_loop_inclusive")
    // The reference solution's time for each of its tests, in ms, as its
    // test program measured it (empty in a file saved before they were kept).
    std::map<std::string, double> solution_test_ms;
};

// <build_dir>/measured-grading/<lesson>.json
std::filesystem::path measured_grading_file(const std::filesystem::path& build_dir, const std::string& lesson);
void save_measured_grading(const std::filesystem::path& build_dir, const measured_grading& measured);
// Nullopt where none was saved, or the file cannot be read as one.
std::optional<measured_grading> load_measured_grading(const std::filesystem::path& build_dir,
                                                      const std::string& lesson);

// The seconds one submission may take to grade with a per-test limit of
// `timeout_s`: the slowest run measured, scaled up where the limit is longer
// than verify's (a hang runs to it), times `margin` (a busier GPU, a slower
// node, a student's slower code).
inline constexpr double measured_grading_margin = 3.0;
double seconds_per_submission(const measured_grading& measured, int timeout_s);

// Each test's limit in a batch, as judges set theirs from the reference
// solution's time: `test_limit_base` plus `test_limit_times` the solution's
// time for that test, and `first_gpu_test_extra` more for the first GPU
// test of each process, never over `per_test_limit`. The base and the extra
// cover, with room to spare, what a test costs under a batch's load
// whatever its work, which the solution's time on an idle GPU does not show.
// Every test shares the GPU and the CPU with other runs, and a process's
// first GPU test also creates its CUDA context, one at a time in the driver
// with every other process starting. In lesson01's class of 20 on an H200
// (2026-11-30, `logs/<student>.timings.txt`), correct tests whose solution
// alone takes under 0.3 s took up to 1.3 s, and up to 3.6 s as a process's
// first GPU test (beside a hang). Only on the GPU model the solution was
// measured on (`gpu`, as device summaries name it): elsewhere, and for a
// test with no time measured, no tighter limit.
inline constexpr int test_limit_times = 20;
inline constexpr std::chrono::seconds test_limit_base{5};
inline constexpr std::chrono::seconds first_gpu_test_extra{10};
test_time_limits test_limits_from(const measured_grading& measured, const std::string& gpu,
                                  std::chrono::seconds per_test_limit);

}  // namespace grader
