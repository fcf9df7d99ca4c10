#pragma once
// Evidence for a slow test: after a graded run, each performance test of the
// student's kernels that failed is run again alone, in a process of its own,
// under Nsight Compute (kernel_metrics.hpp), and what the profile shows leads
// the test's messages. With `grader run --profile`, every performance test
// that can run here is profiled, the passing ones and those held back by a
// failed correctness test too, and each gets its table of kernels.
//
// A profile never changes a verdict (the judge decides those): it runs the
// student's code and only explains. Tests of what surrounds the kernels (a
// cache, an allocator, streams: GRADED_PERF_TEST_SYSTEM) get no explanation
// from it, only the table where --profile asks for one.
#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "evidence/kernel_profile.hpp"
#include "report/report.hpp"

namespace grader {

struct profile_options {
    bool every_test = false;  // --profile
    std::chrono::milliseconds budget{60'000};  // all of one run's profiles together
    std::chrono::milliseconds per_run_limit{240'000};
};

inline constexpr std::chrono::seconds failure_profile_budget{60};
inline constexpr std::chrono::seconds profile_all_budget{600};

// Runs test `id` of the student's program alone under `tool_command` (which
// ends where the program's own arguments begin), stopped after `limit`;
// returns whether the profiler ended by itself (else its report is cut short).
using run_under_profiler_fn = std::function<bool(const std::string& id, const std::vector<std::string>& tool_command,
                                                 std::chrono::milliseconds limit)>;

// The kernels compiled into the student's library and into the test
// program (kernel_profile.hpp): asked for once, when the first profile is read.
using list_kernel_sources_fn = std::function<kernel_sources()>;

// The tests to profile, in report order. `kernel_speed`: the performance
// tests whose figures are the speed of the student's kernels.
std::vector<std::string> tests_to_profile(const std::vector<graded_test>& tests, const std::set<std::string>& kernel_speed,
                                          bool every_test);

// Profiles the tests that need it (ncu's CSV into `report_dir`), adds the
// tables and the explanations. Returns the run's notes: ncu missing, not
// allowed to read the GPU's counters, the budget spent; each said once.
std::vector<std::string> add_profile_evidence(std::vector<graded_test>& tests, const std::set<std::string>& kernel_speed,
                                              const profile_options& options, const std::filesystem::path& report_dir,
                                              const list_kernel_sources_fn& list_sources,
                                              const run_under_profiler_fn& run_under);

}  // namespace grader
