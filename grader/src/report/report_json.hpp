#pragma once
// Reading back the JSON report that format_json writes, so that a batch that
// resumes can put the students it already graded into the gradebook and the
// class report without grading them again.
#include <optional>
#include <string>

#include "report/report.hpp"

namespace grader {

// The inverse of to_string(test_status); nullopt for a name it never writes.
std::optional<test_status> test_status_from_string(const std::string& name);

// Throws std::runtime_error naming what is wrong when `json_text` is not a
// report format_json wrote (a corrupt or foreign file).
lesson_report report_from_json(const std::string& json_text);

}  // namespace grader
