#include "report.hpp"

#include <algorithm>

namespace grader {

const char* to_string(test_status s) {
    switch (s) {
        case test_status::passed: return "passed";
        case test_status::failed: return "failed";
        case test_status::skipped: return "skipped";
        case test_status::crashed: return "crashed";
        case test_status::timed_out: return "timed_out";
        case test_status::missing: return "missing";
        case test_status::not_run: return "not_run";
    }
    return "unknown";
}

int lesson_report::score() const {
    int total = 0;
    for (const auto& t : tests) total += t.score();
    return total;
}

int lesson_report::max_score() const {
    int total = 0;
    for (const auto& t : tests) total += t.points;
    return total;
}

bool lesson_report::graded() const {
    return std::any_of(tests.begin(), tests.end(), [](const graded_test& t) {
        return t.status != test_status::skipped && t.status != test_status::not_run;
    });
}

int lesson_report::count(test_status s) const {
    return static_cast<int>(std::count_if(tests.begin(), tests.end(),
                                          [s](const graded_test& t) { return t.status == s; }));
}

}  // namespace grader
