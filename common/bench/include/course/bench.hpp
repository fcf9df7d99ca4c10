#pragma once
// Google Benchmark with GPU time. Each iteration's time is measured with CUDA
// events around the queued work (UseManualTime), behind a start gate
// (start_gate.hpp), so the numbers are what the GPU spent, not how long the
// host took to queue the work or waited for it. Every benchmark also reports its
// bandwidth against this GPU's measured copy bandwidth, so numbers from
// different machines can be compared as shares of what each one can do.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>

#include "course/device_info.hpp"

namespace course::bench {

// The GPU this program runs on, measured once.
struct gpu_facts {
    device_properties device;
    double copy_gbps;  // a 1 GiB device-to-device copy, read + write, timed as the rows are
};
const gpu_facts& gpu();

// Times `work` (which queues GPU work on the stream it is given) for each
// iteration of `state`, and reports GB/s, % of copy bandwidth and GFLOP/s
// from what one call moves (`bytes`) and computes (`flops`). Register the
// benchmark with ->UseManualTime().
void time_gpu(benchmark::State& state, const std::function<void(cudaStream_t)>& work,
              double bytes, double flops = 0, cudaStream_t stream = nullptr);

// Whether `bytes` of device memory fit in what this GPU has free, with a
// tenth to spare. If not, the row is skipped with a message that says how
// much it needs (the largest sizes need about 3 GiB, more than a small GPU
// has): call it before allocating, and return when it says false.
bool device_memory_for(benchmark::State& state, double bytes);

}  // namespace course::bench
