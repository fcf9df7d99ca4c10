#pragma once
// What `grader run` and `grader watch` share after grading an attempt at a
// lesson: remembering the best score.
#include <ostream>
#include <string>

#include "checkout/manifest.hpp"
#include "report/report.hpp"

namespace grader {

// Keeps the report's score in the progress file if it is the student's best
// so far. Only for the exercise, and only when something was really graded.
// A progress file that could not be read is reported on `warnings`.
// Returns true for a new best.
bool remember_score(const manifest& m, const lesson_report& report, std::ostream& warnings);

}  // namespace grader
