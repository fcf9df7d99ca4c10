#pragma once
// The class report of a batch: how a class did on a lesson, for the
// instructor. One self-contained HTML page (its pictures embedded, so it can
// be mailed or uploaded alone) and the same pictures as PNGs beside it: the
// score histogram, the share of the class that lost each test, the most
// common diagnoses ("41% lost VecAdd.PartialLastBlock: the last, partial
// block did not run"), build failures, and which GPU graded whom.
//
// The numbers are computed here into class_report.json; the drawing is
// grader/plot/class_report.py (matplotlib), which also runs alone:
//   python3 grader/plot/class_report.py class_report.json -o OUT_DIR
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batch/class_report_ahead.hpp"
#include "batch/result.hpp"
#include "checkout/manifest.hpp"

namespace grader {

// What a failed test teaches in one line: the last line of its first message
// when that has several (the course's tests end a failure with the mistake
// that usually causes it, after what they saw), else the first line; the
// status in words when it has no message.
std::string diagnosis_of(const graded_test& test);

// The line with every number replaced by '#', so that the same mistake seen
// with other values (seeds, indices, addresses) is counted once.
std::string without_numbers(const std::string& line);

// The report's data (schema "course-class-report/1"): counts, every score,
// per-test losses, the commonest diagnoses and build errors, who was not
// graded and why, which device and worker graded each submission, and how
// many were graded without the sandbox (--no-sandbox: "unsandboxed").
nlohmann::json class_report_data(const std::string& lesson_id, const std::string& lesson_title,
                                 const std::vector<batch_result>& results);

// The plotting script in the course's sources.
std::filesystem::path class_report_script(const manifest& m);

// Writes out_dir/class_report.json, then runs `script` on it with a Python
// that has matplotlib (python.hpp), which writes class_report.html,
// score_histogram.png and test_losses.png in out_dir. Throws user_error when
// there is no such Python (saying how to install one) or the script fails
// (with the end of its output). `ahead`: the script started earlier
// (class_report_ahead.hpp), which then only draws; else one is started now.
void write_class_report(const nlohmann::json& data, const std::filesystem::path& out_dir,
                        const std::filesystem::path& script, class_report_ahead* ahead = nullptr);

}  // namespace grader
