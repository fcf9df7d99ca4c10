#pragma once
// Timing GPU work. The host clock cannot time a kernel by itself (launches
// return at once), so event_timer puts an event before and after the work on
// the GPU's own timeline and reads the time between them.
#include <cuda_runtime_api.h>

#include <chrono>
#include <vector>

#include "course/event.hpp"

namespace course {

using milliseconds = std::chrono::duration<float, std::milli>;

class event_timer {
public:
    void start(cudaStream_t stream = nullptr) { start_.record(stream); }
    void stop(cudaStream_t stream = nullptr) { stop_.record(stream); }
    // Waits for the stop event, then returns the GPU time between the two.
    milliseconds elapsed() const {
        stop_.synchronize();
        return stop_.since(start_);
    }

private:
    event start_;
    event stop_;
};

// Summary of repeated measurements (any unit; the benchmark uses microseconds).
struct statistics {
    std::size_t n = 0;
    double mean = 0, stddev = 0, min = 0, median = 0, max = 0;
};
statistics summarize(std::vector<double> samples);

}  // namespace course
