#include "course/bench.hpp"

#include "course/error.hpp"
#include "course/timing.hpp"

#include <cstdio>
#include <exception>

namespace course::bench {

bool device_memory_for(benchmark::State& state, double bytes) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes <= 0.9 * static_cast<double>(free_bytes)) return true;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    char message[200];
    std::snprintf(message, sizeof message,
                  "needs %.1f GiB of device memory and this GPU has %.1f GiB free: leave this size out (--sizes)",
                  bytes / gib, static_cast<double>(free_bytes) / gib);
    state.SkipWithError(message);
    return false;
}

const gpu_facts& gpu() {
    static const gpu_facts facts{query_device(), measured_copy_bandwidth_gbps()};
    return facts;
}

void time_gpu(benchmark::State& state, const std::function<void(cudaStream_t)>& work, double bytes,
              double flops, cudaStream_t stream) {
    try {
        work(stream);  // warm-up: first launch, caches, clocks
        CUDA_CHECK(cudaStreamSynchronize(stream));
    } catch (const std::exception& e) {
        // An unfinished exercise (course::todo) or a failing launch loses this
        // row of the sweep, not the whole program: the JSON output records the
        // error and `grader bench` reports it.
        state.SkipWithError(e.what());
        return;
    }
    event_timer timer;
    double total_seconds = 0;
    for (auto _ : state) {
        timer.start(stream);
        work(stream);
        timer.stop(stream);
        const double seconds = timer.elapsed().count() / 1e3;
        total_seconds += seconds;
        state.SetIterationTime(seconds);
    }
    const double iterations = static_cast<double>(state.iterations());
    if (total_seconds <= 0 || iterations <= 0) return;
    if (bytes > 0) {
        const double gbps = bytes * iterations / total_seconds / 1e9;
        state.counters["GB/s"] = gbps;
        state.counters["copy%"] = 100.0 * gbps / gpu().copy_gbps;
    }
    if (flops > 0) state.counters["GFLOP/s"] = flops * iterations / total_seconds / 1e9;
}

}  // namespace course::bench
