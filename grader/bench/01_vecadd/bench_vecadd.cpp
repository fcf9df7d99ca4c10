// lesson01 benchmark: vector addition against the GPU's own copy bandwidth,
// over sizes 2^20..2^28 and block sizes 64..1024.
//   grader bench lesson01          (or run build/bin/lesson01_solution_bench)
#include "course/bench.hpp"
#include "course/device_array.hpp"
#include "vecadd.cuh"

namespace {

void BM_vecadd(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const int threads = static_cast<int>(state.range(1));
    course::device_array<float> a(n), b(n), c(n);
    a.fill_bytes(0);
    b.fill_bytes(0);
    course::bench::time_gpu(
        state, [&](cudaStream_t s) { lesson01::vecadd(a.view(), b.view(), c.view(), threads, s); },
        3.0 * n * sizeof(float));
    state.counters["n"] = static_cast<double>(n);
    state.counters["threads"] = threads;
}

// The reference point: a device-to-device copy of the same bytes (read + write).
void BM_copy(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    course::device_array<float> a(n), c(n);
    a.fill_bytes(0);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(c.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, s));
        },
        2.0 * n * sizeof(float));
    state.counters["n"] = static_cast<double>(n);
}

}  // namespace

BENCHMARK(BM_vecadd)
    ->ArgNames({"n", "threads"})
    ->ArgsProduct({benchmark::CreateRange(1 << 20, 1 << 28, 4), {64, 128, 256, 512, 1024}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_copy)
    ->ArgName("n")
    ->RangeMultiplier(4)
    ->Range(1 << 20, 1 << 28)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
