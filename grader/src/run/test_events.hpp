#pragma once
// What a test program says about a test, read as untrusted input: its end
// event (status, messages, time), cleaned of GoogleTest's wording and capped
// in count and size, and its last output before it died.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace grader {

// What one program (the student's or the judge) said about one test.
struct outcome {
    test_status status = test_status::missing;
    std::vector<std::string> messages;
    double ms = 0;
    bool left_to_judge = false;  // a pass the student's program did not decide ("deferred")
    std::string figure{};        // a speed test's figure in one line (course::testing::report_figure)
    // Every failure explained by the test from its data, by a cause no
    // compute-sanitizer tool looks at (course/testing/explained.hpp).
    bool explained_beyond_the_tools = false;
};

// A string field of an event, or "" where it is missing or not a string.
std::string string_field(const nlohmann::json& event, const char* name);

// A test's end event: anything but "passed", "deferred" or "skipped" is a
// failure, and a failure with no message gets one.
outcome read_end_event(const nlohmann::json& event);

// Turns GoogleTest's wording into the report's: unwraps exceptions, folds
// SCOPED_TRACE context into one line.
std::string clean_message(const std::string& gtest_message);

// The program's own last words before it died ("last output:" and its last
// lines), without GoogleTest's progress lines, which say nothing about a crash.
std::string last_output(const std::filesystem::path& log);

}  // namespace grader
