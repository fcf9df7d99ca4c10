#pragma once
// Host work timed on the grader's clock, not on the student's program's.
//
// A clock read inside the student's program says what that program wants:
// its code shares the process and can replace clock_gettime, which
// std::chrono reads (cheat patched_clock in lessons 03 and 04). So a speed
// test of host work (lesson03's cache hit, lesson04's pool) reads no clock
// there. It makes its calls in rounds, and the grader times each round:
//
//   the program says "ready" (round k) on its event line, and waits;
//   the grader writes its word, "go <calls>", and reads its own clock;
//   the program makes that many calls and says "done";
//   the grader reads its clock again and writes the round's span where the
//   judge reads it (evidence.hpp: host_spans_suffix).
//
// The grader picks how many calls: the test's first guess for round 0, then
// enough for a round of about 10 ms, so that the few tens of microseconds
// its words take are lost in the figure. The judge's figure is the best
// round's span divided by its calls; the student's program leaves its
// verdict to the judge. grader/TRUST.md item 9 says what this proves.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>

namespace course::testing {

struct host_timing {
    // The best round's time per call, in nanoseconds; none in the student's
    // program of a graded run (the grader has the figure), nor where the judge
    // found none (a failure says why).
    std::optional<double> ns_per_call;
    long calls = 0;  // calls made in all rounds: as many results as the test must have seen
};

inline constexpr int host_timing_rounds = 5;
// The grader's aims for a round (grader/src/run/host_spans.hpp uses them too).
inline constexpr double host_round_target_ns = 10e6;
inline constexpr long host_round_max_calls = 10'000'000;

// The number of calls of the round after one of `calls` that took `ns`:
// enough for about host_round_target_ns, never fewer than `calls`. Inline:
// the grader, which picks them, links none of the test harness.
inline long next_round_calls(long calls, double ns) {
    if (!(ns > 0)) return std::min(calls * 16, host_round_max_calls);  // too quick to see: far more
    const double wanted = std::ceil(static_cast<double>(calls) * host_round_target_ns / ns);
    return static_cast<long>(std::clamp(wanted, static_cast<double>(calls), static_cast<double>(host_round_max_calls)));
}

// Makes host_timing_rounds rounds of `call`, the first of `first_calls`
// calls, timed as above. Anywhere but a graded run (ctest, a program run by
// hand) they are timed here, with steady_clock, by the same rule. In the
// judge no call is made: the figures are the grader's.
std::optional<double> ns_per_call_of_rounds(std::string_view what, long first_calls,
                                            const std::function<void(long)>& round, long& calls);

template <class Call>
host_timing time_on_graders_clock(std::string_view what, long first_calls, Call&& call) {
    host_timing t;
    t.ns_per_call = ns_per_call_of_rounds(what, first_calls, [&](long n) {
        for (long i = 0; i < n; ++i) call();
    }, t.calls);
    return t;
}

}  // namespace course::testing
