#pragma once
// What a finished batch hands the instructor, whichever engine graded it:
// the gradebook CSV, the grades and feedback for an LMS, and the class
// report, from every student's result.
#include <filesystem>
#include <vector>

#include "batch/class_report_ahead.hpp"
#include "batch/result.hpp"
#include "batch/similarity_report.hpp"
#include "checkout/manifest.hpp"

namespace grader {

struct outcome_counts {
    int graded = 0, build_failed = 0, not_graded = 0;
};
outcome_counts count_outcomes(const std::vector<batch_result>& results);

// The grades and feedback for an LMS (batch/lms_export.hpp), with the roster
// and column kept in `out`; prints where they are and names the students
// the roster does not (and those of the roster with no submission).
void write_grades_for_lms(const std::filesystem::path& out, const lesson_info& lesson,
                          const std::vector<batch_result>& results);

// Writes out/gradebook.csv, the grades for an LMS (write_grades_for_lms), and out/report/ (class_report.html and its
// pictures; only class_report.json where no Python with matplotlib is found,
// saying so), and prints where they are. With `similarity` (the class
// compared: similarity_report.hpp), also out/similarity.json, the
// gradebook's similarity column and the class report's section on it.
// `report_ahead`: the class report's script, started earlier (class_report_ahead.hpp).
void write_class_outputs(const manifest& m, const lesson_info& lesson, const std::filesystem::path& out,
                         const std::vector<batch_result>& results, const class_similarity* similarity = nullptr,
                         class_report_ahead* report_ahead = nullptr);

}  // namespace grader
