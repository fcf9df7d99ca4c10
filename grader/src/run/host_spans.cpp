#include "run/host_spans.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "course/testing/evidence.hpp"
#include "course/testing/graders_clock.hpp"
#include "run/concurrent_judge.hpp"

namespace grader {

namespace {
std::filesystem::path word_file(const std::filesystem::path& claims, const std::string& file_name, int round) {
    return claims / (file_name + course::testing::host_span_suffix + std::to_string(round));
}
}  // namespace

host_spans::host_spans(const std::filesystem::path& claims, const std::string& test_id)
    : claims_(claims), file_name_(course::testing::evidence_file_name(test_id)) {
    std::error_code ec;
    for (int round = 0; round < course::testing::host_timing_rounds; ++round)
        std::filesystem::remove(word_file(claims_, file_name_, round), ec);
    std::filesystem::remove(claims_ / (file_name_ + course::testing::host_spans_suffix), ec);
}

bool host_spans::take(const nlohmann::json& event) {
    const auto step = event.find("step"), round = event.find("round");
    if (step == event.end() || !step->is_string() || round == event.end() || !round->is_number_integer() ||
        round->get<long long>() != next_round_ || next_round_ >= course::testing::host_timing_rounds)
        return false;
    if (*step == "ready" && !running_) {
        // The first round takes the test's guess (bounded); each later one as
        // many calls as make about 10 ms at the last round's pace.
        if (next_round_ == 0) {
            const auto guess = event.find("calls");
            const long asked = guess != event.end() && guess->is_number_integer() ? guess->get<long>() : 1;
            calls_ = std::clamp(asked, 1L, course::testing::host_round_max_calls);
        } else {
            calls_ = course::testing::next_round_calls(calls_, last_ns_);
        }
        // A folder that cannot take the word (none in this run) leaves the
        // round untimed: the program waits, and the judge finds no span.
        std::error_code ec;
        if (!std::filesystem::is_directory(claims_, ec)) return false;
        write_word(word_file(claims_, file_name_, next_round_), fmt::format("go {}", calls_));
        started_ = clock::now();  // once the word is there to be seen
        running_ = true;
        return true;
    }
    if (*step == "done" && running_) {
        last_ns_ = std::chrono::duration<double, std::nano>(clock::now() - started_).count();
        spans_ += fmt::format("{} {} {:.0f}\n", next_round_, calls_, last_ns_);
        // Rewritten whole after each round: the judge reads it once the test has ended.
        write_word(claims_ / (file_name_ + course::testing::host_spans_suffix), spans_);
        running_ = false;
        ++next_round_;
        return true;
    }
    return false;
}

}  // namespace grader
