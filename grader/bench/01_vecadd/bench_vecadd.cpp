// lesson01 benchmark: vector addition against the GPU's own copy bandwidth,
// over sizes 2^20..2^28 and block sizes 64..1024.
//   grader bench lesson01          (or run build/bin/lesson01_exercise_bench)
//
// And "When does the GPU win?" (the BM_when family, which only
// `grader bench lesson01 --vs-cpu` runs): the wall-clock time a program
// waits for one addition, 2^10..2^28 elements, three ways: on the CPU
// (vecadd_cpu, every core), on the GPU with the data already there (launch,
// kernel, wait), and on the GPU starting and ending in host memory (copy a
// and b over, add, copy c back).
#include <vector>

#include "course/bench.hpp"
#include "course/device_array.hpp"
#include "course/error.hpp"
#include "vecadd.cuh"
#include "vecadd_cpu.hpp"

namespace {

void BM_vecadd(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const int threads = static_cast<int>(state.range(1));
    if (!course::bench::device_memory_for(state, 3.0 * n * sizeof(float))) return;
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
    if (!course::bench::device_memory_for(state, 2.0 * n * sizeof(float))) return;
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

// --- When does the GPU win? ---------------------------------------------------
// Wall-clock time (UseRealTime), as a program would wait for each answer:
// the launch and the wait are part of the cost, not only the GPU's work.

void BM_when_cpu(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
    for (auto _ : state) {
        lesson01::vecadd_cpu(a, b, c);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    state.counters["n"] = static_cast<double>(n);
}

void BM_when_gpu_kernel(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    if (!course::bench::device_memory_for(state, 3.0 * n * sizeof(float))) return;
    course::device_array<float> a(n), b(n), c(n);
    a.fill_bytes(0);
    b.fill_bytes(0);
    for (auto _ : state) {
        lesson01::vecadd(a.view(), b.view(), c.view());
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    state.counters["n"] = static_cast<double>(n);
}

// Host arrays as a program has them (ordinary, pageable memory, as NumPy's
// are), copied over and back with every call.
void BM_when_gpu_with_copies(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    if (!course::bench::device_memory_for(state, 3.0 * n * sizeof(float))) return;
    std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n);
    course::device_array<float> da(n), db(n), dc(n);
    for (auto _ : state) {
        da.copy_from_host(a.data(), n);
        db.copy_from_host(b.data(), n);
        lesson01::vecadd(da.view(), db.view(), dc.view());
        dc.to_host(c.data(), n);  // waits for the kernel, then copies
    }
    state.counters["n"] = static_cast<double>(n);
}

// The three ways are measured alike: 2^10 to 2^28 elements, wall-clock time.
void when_sizes(benchmark::internal::Benchmark* b) {
    b->ArgName("n")->RangeMultiplier(4)->Range(1 << 10, 1 << 28)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

BENCHMARK(BM_when_cpu)->Name("BM_when/cpu")->Apply(when_sizes);
BENCHMARK(BM_when_gpu_kernel)->Name("BM_when/gpu_kernel")->Apply(when_sizes);
BENCHMARK(BM_when_gpu_with_copies)->Name("BM_when/gpu_with_copies")->Apply(when_sizes);

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
