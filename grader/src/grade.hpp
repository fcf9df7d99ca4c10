#pragma once
// Grading one build variant of a lesson (exercise, solution or a mutant):
// what `grader run` and `grader verify` share.
#include <chrono>
#include <string>
#include <vector>

#include "manifest.hpp"
#include "report.hpp"

namespace grader {

struct grade_options {
    unsigned long long seed = 0;
    std::chrono::seconds per_test_limit{60};
    std::vector<std::string> only;  // test ids; empty: all
    bool sandbox = false;           // a graded run: hide the course's secrets (sandbox.hpp)
};

// The build targets grading a variant needs: its tests, and the judge's
// (the solution's tests, which decide every verdict).
std::vector<std::string> targets_for_grading(const lesson_info& lesson, const std::string& variant);

// Runs the variant's (already built) graded tests and fills in the device.
lesson_report grade_variant(const manifest& m, const lesson_info& lesson, const std::string& variant,
                            const grade_options& options);

}  // namespace grader
