#pragma once
// What `grader verify` holds each build variant to. Each check returns the
// problems it found, one sentence each; none means the variant is as it
// should be.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace grader {

// A known-wrong version's grader/mutants/NN_name/<mistake>/expect.json.
struct expectation {
    std::string mistake;
    std::vector<std::string> must_fail;                    // tests that must catch it
    std::vector<std::string> must_pass;                    // tests it must not disturb
    std::map<std::string, std::string> status;             // exact status, e.g. "timed_out"
    // The diagnosis the report must give: one text, or one of a few where
    // the same mistake can be caught two right ways and timing decides which
    // comes first (a kernel launched later by a thread of the student's: the
    // output is read before it ran, or it ran before the output was read).
    std::map<std::string, std::vector<std::string>> message_contains;
    std::optional<int> score, max_score;                   // the whole report's, where they matter
    std::string note_contains;                             // what the report's notes must say
    // The oldest GPU on which the mistake can show ("needs": {"compute_capability":
    // "8.0", "why": "TF32 exists from Ampere on"}): on an older one verify
    // passes the version over, saying why, instead of calling it uncaught.
    std::optional<std::pair<int, int>> needs_compute_capability;
    std::string needs_why;
};
expectation parse_expectation(const std::string& json_text);

// Why this GPU (compute capability major.minor) cannot show the mistake, or
// nothing when it can.
std::optional<std::string> unmet_need(const expectation& expect, int major, int minor);

// A known-right textbook form's grader/textbooks/NN_name/<name>/about.json:
// the lesson's technique written plainly, and the speed tests it answers
// (each must pass, with its figures shown by verify).
struct textbook_form {
    std::string technique;
    std::vector<std::string> speed_tests;
};
textbook_form parse_textbook_form(const std::string& json_text);

// The reference solution: every test passed.
std::vector<std::string> check_full_marks(const lesson_report& report);
// The untouched skeleton: no correctness test passed, and every failure says why.
std::vector<std::string> check_loses_all_correctness(const lesson_report& report);
// A textbook form: full marks, and each speed test it answers is in the
// report as a speed test (a renamed test is not silently dropped).
std::vector<std::string> check_textbook_form(const lesson_report& report, const textbook_form& form);
// A known-wrong version: caught where it should be, and only there.
std::vector<std::string> check_expectation(const lesson_report& report, const expectation& expect);

}  // namespace grader
