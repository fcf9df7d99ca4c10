#pragma once
// `grader run --timings`: where a run's seconds went. Each step of the run
// (the build, the grader's own GPU query, listing the tests, each process's
// start-up, each test in the student's program and in the judge, the
// evidence) is one span on one clock, so that the table shows what ran at the
// same time as what. Several threads add spans (the judge runs in its own).
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace grader {

class step_timings {
public:
    using clock = std::chrono::steady_clock;

    struct span {
        std::string step;    // "build", "judge: VecAdd.Small"
        double start_s = 0;  // from the run's start
        double seconds = 0;
    };

    // Measures one step for as long as it lives.
    class measure {
    public:
        measure(step_timings* timings, std::string step)
            : timings_(timings), step_(std::move(step)), start_(clock::now()) {}
        ~measure() {
            if (timings_) timings_->add(step_, start_, clock::now());
        }
        measure(const measure&) = delete;
        measure& operator=(const measure&) = delete;

    private:
        step_timings* timings_;
        std::string step_;
        clock::time_point start_;
    };

    step_timings() : origin_(clock::now()) {}
    // A batch's table for one submission: times from the batch's start, so
    // that they line up with its timeline.
    step_timings(clock::time_point origin, std::string origin_name)
        : origin_(origin), origin_name_(std::move(origin_name)) {}

    void add(const std::string& step, clock::time_point start, clock::time_point end);
    std::vector<span> spans() const;  // in the order they started

    // The table `--timings` prints: when each step started, how long it took.
    std::string format() const;

private:
    clock::time_point origin_;
    std::string origin_name_ = "the command's start";
    mutable std::mutex mutex_;
    std::vector<span> spans_;
};

}  // namespace grader
