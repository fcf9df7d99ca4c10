#include "course/testing/graders_clock.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>

#include "course/testing/evidence.hpp"

namespace course::testing {

namespace {

std::string current_test() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return info ? std::string(info->test_suite_name()) + "." + info->name() : std::string();
}

std::string span_event(const char* step, int round, long calls) {
    return nlohmann::json{{"event", "span"}, {"test", current_test()}, {"step", step}, {"round", round},
                          {"calls", calls}}
        .dump();
}

// Not a graded run: the rounds timed here.
double time_here(long first_calls, const std::function<void(long)>& round, long& calls) {
    using clock = std::chrono::steady_clock;
    double best = std::numeric_limits<double>::infinity();
    long n = first_calls;
    for (int k = 0; k < host_timing_rounds; ++k) {
        const auto start = clock::now();
        round(n);
        const double ns = std::chrono::duration<double, std::nano>(clock::now() - start).count();
        calls += n;
        best = std::min(best, ns / static_cast<double>(n));
        n = next_round_calls(n, ns);
    }
    return best;
}

// The student's program in a graded run: each round on the grader's word.
bool rounds_on_graders_word(std::string_view what, long first_calls, const std::function<void(long)>& round,
                            long& calls) {
    for (int k = 0; k < host_timing_rounds; ++k) {
        const std::string word = say_and_wait_for_graders_word(span_event("ready", k, first_calls),
                                                               host_span_suffix + std::to_string(k));
        std::istringstream in(word);
        std::string go;
        long n = 0;
        if (!(in >> go >> n) || go != "go" || n < 1 || n > host_round_max_calls) {
            ADD_FAILURE() << fmt::format("{}: not timed: the grader gave no word for round {} of {} ({})", what,
                                         k + 1, host_timing_rounds, word.empty() ? "none came" : "'" + word + "'");
            return false;
        }
        round(n);
        calls += n;
        say_to_grader(span_event("done", k, n));
    }
    return true;
}

// The judge: the grader's spans for this test, "<round> <calls> <ns>" a line.
std::optional<double> graders_figure(std::string_view what, long& calls) {
    const std::string file = grader_file_for_this_test(host_spans_suffix);
    std::map<int, std::pair<long, double>> rounds;
    std::ifstream in(file);
    int round = 0;
    long n = 0;
    double ns = 0;
    while (in >> round >> n >> ns)
        if (round >= 0 && round < host_timing_rounds && n > 0 && ns > 0) rounds[round] = {n, ns};
    if (static_cast<int>(rounds.size()) != host_timing_rounds) {
        ADD_FAILURE() << fmt::format(
            "{}: not timed: the grader timed {} of the {} rounds of calls (the test program did not ask for "
            "the others, or did not say it had made their calls)",
            what, rounds.size(), host_timing_rounds);
        return std::nullopt;
    }
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [k, r] : rounds) {
        calls += r.first;
        best = std::min(best, r.second / static_cast<double>(r.first));
    }
    return best;
}

}  // namespace

std::optional<double> ns_per_call_of_rounds(std::string_view what, long first_calls,
                                            const std::function<void(long)>& round, long& calls) {
    calls = 0;
    first_calls = std::clamp(first_calls, 1L, host_round_max_calls);
    if (judging()) return graders_figure(what, calls);
    if (grader_listens()) {
        // The figure is the grader's, which this program never sees: the judge decides.
        verdict_left_to_judge();
        rounds_on_graders_word(what, first_calls, round, calls);
        return std::nullopt;
    }
    return time_here(first_calls, round, calls);
}

}  // namespace course::testing
