#pragma once
// When each submission of a batch was built, judged and explained, and when
// it waited for, shared or held its GPU alone: what `grader batch` writes to
// logs/batch.json and grader/batch/bench_batch.py draws. It shows where a
// batch's time went (a timed test waiting behind long correctness tests, say).
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "run/gpu_gate.hpp"

namespace grader {

struct timeline_span {
    // build, judge, explain; the gate's: queued, shared, waiting_alone, alone,
    // with "explain_" before them while explaining (explain_shared, ...)
    std::string kind;
    double start = 0, end = 0;  // seconds since the batch started
};

struct submission_timeline {
    std::string student;
    std::vector<timeline_span> spans;
};

// When the last score was known, in seconds since the batch began: the end
// of the last submission's judging (or of its build, where it did not
// build). Its explanation may come later; that changes no score.
double scores_final_seconds(const std::vector<submission_timeline>& timeline);

class batch_timeline {
public:
    using time_point = std::chrono::steady_clock::time_point;
    explicit batch_timeline(time_point started) : started_(started) {}

    // A stretch of work on a submission, done by the calling thread.
    void record(const std::string& student, const std::string& kind, time_point start, time_point end);

    // Every submission's stretches, with the gates' spans given to the
    // submission their thread was judging or explaining at the time, or
    // their run was (a span opened on a thread of the run's own).
    std::vector<submission_timeline> compose(const std::vector<gate_span>& gate_spans) const;

private:
    struct work {
        std::string student;
        std::thread::id thread;
        timeline_span span;
    };
    double seconds(time_point t) const;

    time_point started_;
    mutable std::mutex mutex_;
    std::vector<work> work_;
};

}  // namespace grader
