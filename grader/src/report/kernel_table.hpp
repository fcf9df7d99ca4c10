#pragma once
// A test's profile as the report prints it (`grader run --profile`): one
// row per kernel that Nsight Compute measured, and the figures' wording,
// which the profile's explanations (evidence/kernel_metrics.hpp) share.
#include <string>
#include <vector>

#include "report/kernel_measure.hpp"

namespace grader {

// "57%", "2.5%", "-" where not measured (negative).
std::string percent_figure(double pct);
// "12.3 us", "1.25 ms", "-" where not measured (negative).
std::string duration_figure(double ns);

// The profile as a small table, one line per kernel, for the text report.
std::vector<std::string> profile_table(const std::vector<kernel_measure>& kernels);

}  // namespace grader
