#pragma once
// How long grading one submission of a lesson takes, as `grader verify`
// measured it on a GPU: it grades the solution, the skeleton, every
// known-wrong version, cheat and textbook form as a student's, each timed
// whole (build excluded, explanations included). Kept in the course's build
// folder, where `grader batch --engine slurm` reads it to set its tasks'
// time limit from measured times rather than from every test running to its
// limit.
#include <filesystem>
#include <optional>
#include <string>

namespace grader {

struct measured_grading {
    std::string lesson;
    std::string gpu;        // "NVIDIA H200 (sm_90)"
    std::string date;       // ISO 8601, UTC
    int timeout_s = 0;      // the per-test limit the runs had
    int runs = 0;           // graded runs measured
    double slowest_s = 0;   // the slowest of them
    std::string slowest;    // which one ("mutant naive_k_loop_inclusive")
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

}  // namespace grader
