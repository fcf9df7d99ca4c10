#pragma once
// The grader's clock for host work that a test times
// (course/testing/graders_clock.hpp): the student's program says "ready"
// for a round of calls, the grader writes its word ("go <calls>") and starts
// its clock, the program makes the calls and says "done", and the grader
// stops its clock and writes the round's span where the judge reads it.
// No clock of the student's program plays a part.
#include <chrono>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace grader {

class host_spans {
public:
    // For the test `test_id` as it starts: its words and spans go to the
    // claims folder `claims`, which the student's program can read but not
    // write. Words and spans of an earlier start of the test are removed.
    host_spans(const std::filesystem::path& claims, const std::string& test_id);

    // One "span" event of the test: "ready" for the next round writes the
    // word and starts the clock; "done" for that round stops it and adds the
    // round to the spans file. False for an event out of turn (a round
    // skipped or repeated, "done" before "ready", more rounds than a test
    // makes), which changes nothing.
    bool take(const nlohmann::json& event);

private:
    using clock = std::chrono::steady_clock;
    std::filesystem::path claims_;
    std::string file_name_;  // the test's evidence file name, which the words' names start with
    int next_round_ = 0;
    bool running_ = false;
    long calls_ = 0;
    double last_ns_ = 0;
    clock::time_point started_;
    std::string spans_;  // "<round> <calls> <ns>" lines so far
};

}  // namespace grader
