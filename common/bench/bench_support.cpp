#include "course/bench.hpp"

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/start_gate.hpp"
#include "course/timing.hpp"

#include <cstdio>
#include <exception>
#include <vector>

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

namespace {

// Times one call of `work` with events on `stream`: behind `gate` when there
// is one (start_gate.hpp), else from whenever the GPU reaches the start event.
double seconds_of_one_call(const std::function<void(cudaStream_t)>& work, cudaStream_t stream, event_timer& timer,
                           start_gate* gate) {
    if (gate) gate->close(stream);
    timer.start(stream);
    work(stream);
    timer.stop(stream);
    if (gate) gate->open();
    return timer.elapsed().count() / 1e3;
}

// The copy every row is compared with: 1 GiB, device to device, timed behind
// the gate like the rows themselves (the median of ten, after two to warm up).
double copy_bandwidth_gbps() {
    const std::size_t bytes = std::size_t{1} << 30;
    device_array<unsigned char> from(bytes), to(bytes);
    from.fill_bytes(1);
    const auto copy = [&](cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, s));
    };
    event_timer timer;
    start_gate gate;
    std::vector<double> seconds;
    for (int i = 0; i < 12; ++i) {
        const double taken = seconds_of_one_call(copy, nullptr, timer, &gate);
        if (i >= 2) seconds.push_back(taken);
    }
    return 2.0 * static_cast<double>(bytes) / summarize(seconds).median / 1e9;  // read + write
}

}  // namespace

const gpu_facts& gpu() {
    static const gpu_facts facts{query_device(), copy_bandwidth_gbps()};
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
    // One call behind the gate first: work that waits for the GPU from the
    // host makes the gate give up, and is then timed without it.
    start_gate gate;
    seconds_of_one_call(work, stream, timer, &gate);
    start_gate* const gate_used = gate.gave_up() ? nullptr : &gate;
    if (!gate_used)
        state.SetLabel("timed without the start gate: the work waits for the GPU from the host");
    double total_seconds = 0;
    for (auto _ : state) {
        const double seconds = seconds_of_one_call(work, stream, timer, gate_used);
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
