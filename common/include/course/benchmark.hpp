#pragma once
// course::benchmark: times a piece of GPU work the way cupyx.profiler.benchmark
// does. Each sample records the host (CPU) time of the call and, through
// events, the GPU time of the work it queued:
//
//   vecadd (2^28 floats) :  CPU:    6.1 us +/- 0.4 (min: 5.6 / max: 7.9) us
//                           GPU-0: 764.2 us +/- 1.9 (min: 760.1 / max: 770.3) us
//                           4.22 TB/s = 99% of measured copy, 88% of peak
#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "course/timing.hpp"

namespace course {

struct benchmark_options {
    std::string name = "benchmark";
    int warmup = 3;  // untimed calls first: context start-up, caches, clocks
    // Fixed count when set; otherwise adaptive: sample until the relative
    // standard error of the mean falls under `target_relative_noise` (after
    // at least `min_samples`), or until `max_samples` / `max_time`.
    std::optional<int> repeat;
    int min_samples = 10;
    int max_samples = 10000;
    double target_relative_noise = 0.005;
    std::chrono::duration<double> max_time = std::chrono::seconds(2);
    // Overwrite a buffer the size of the L2 cache before each sample, so
    // every sample reads its inputs from memory, not from the cache.
    bool flush_l2 = false;
    // What one call moves and computes, for GB/s and GFLOP/s (0: not shown).
    double bytes = 0;
    double flops = 0;
    cudaStream_t stream = nullptr;
};

struct benchmark_result {
    std::string name;
    statistics cpu_us;  // host time of each call, microseconds
    statistics gpu_us;  // GPU time of each call's work, microseconds
    double bytes = 0;
    double flops = 0;

    // Throughput from the median GPU time (0 when bytes/flops were not given).
    double gigabytes_per_second() const;
    double gigaflops() const;
    // The cupyx-style report; pass the measured copy bandwidth and the peak
    // (GB/s) to see the achieved share of each (0 leaves it out).
    std::string to_string(double copy_gbps = 0, double peak_gbps = 0) const;
};

// `work` queues the GPU work on the stream it is given.
benchmark_result benchmark(const std::function<void(cudaStream_t)>& work,
                           const benchmark_options& options = {});

}  // namespace course
