#pragma once
// What `grader run` and `grader watch` share after building and grading an
// attempt at a lesson: the message for code that does not compile, and
// remembering the best score.
#include <ostream>
#include <string>

#include "build.hpp"
#include "manifest.hpp"
#include "report.hpp"

namespace grader {

// "lesson01 does not compile, so no tests ran." with the first error and
// where the whole log is.
std::string compile_failure_text(const lesson_info& lesson, const build_result& built);

// Keeps the report's score in the progress file if it is the student's best
// so far. Only for the exercise, and only when something was really graded.
// A progress file that could not be read is reported on `warnings`.
// Returns true for a new best.
bool remember_score(const manifest& m, const lesson_report& report, std::ostream& warnings);

}  // namespace grader
