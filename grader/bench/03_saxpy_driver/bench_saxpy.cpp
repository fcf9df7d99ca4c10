// lesson03 benchmark: each step of the driver-API program, beside the same
// step through the runtime API.
//   grader bench lesson03        (or run build/bin/lesson03_solution_bench)
//
//   BM_compile_ptx       NVRTC, source to PTX: what the seed pays at every start
//   BM_compile_cubin     NVRTC, source to CUBIN: what a cache miss pays
//   BM_cache_hit         kernel_cache lookup that hits: what a second start pays
//   BM_load_ptx          cuModuleLoadData of the PTX (the driver compiles it for the GPU)
//   BM_load_cubin        cuModuleLoadData of the CUBIN (nothing left to compile)
//   BM_kernel_driver     the kernel through cuLaunchKernel          (GPU time)
//   BM_kernel_runtime    the same kernel, nvcc-compiled, via <<<>>>  (GPU time)
//   BM_app_driver_cached saxpy_driver end to end, CUBIN from the cache
//   BM_app_driver_nvrtc  saxpy_driver end to end, NVRTC on every call (the seed)
//   BM_app_runtime       the same program written with the runtime API
//
// The program's runtime keeps the primary context alive throughout, so no
// row includes creating the context (a few hundred ms, once per process).
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/device_array.hpp"
#include "course/random.hpp"
#include "course/temp_dir.hpp"
#include "nvrtc_compile.hpp"
#include "runtime_saxpy.hpp"
#include "saxpy_driver.hpp"

namespace {

constexpr unsigned threads = 512;  // the seed's
constexpr std::int64_t seed_n = 512 * 32768;

// The options saxpy_driver uses, for the GPU in this machine.
std::vector<std::string> ptx_options() {
    const auto& device = course::bench::gpu().device;
    return {"--fmad=false",
            "--gpu-architecture=compute_" + std::to_string(device.major) + std::to_string(device.minor)};
}
std::vector<std::string> cubin_options() {
    return {"--fmad=false", "-arch=" + course::bench::gpu().device.arch()};
}

// DoNotOptimize is given a named result: the compiler must assume it is read.
void BM_compile_ptx(benchmark::State& state) {
    const std::vector<std::string> options = ptx_options();
    for (auto _ : state) {
        std::string ptx = lesson03::compile_to_ptx(lesson03::saxpy_source, "saxpy.cu", options);
        benchmark::DoNotOptimize(ptx);
    }
}

void BM_compile_cubin(benchmark::State& state) {
    const std::vector<std::string> options = cubin_options();
    for (auto _ : state) {
        std::string cubin = lesson03::compile_to_cubin(lesson03::saxpy_source, "saxpy.cu", options);
        benchmark::DoNotOptimize(cubin);
    }
}

void BM_cache_hit(benchmark::State& state) {
    const course::temp_dir scratch("lesson03-bench");
    const std::string arch = course::bench::gpu().device.arch();
    lesson03::kernel_cache(scratch.path()).cubin(lesson03::saxpy_source, "saxpy.cu", {"--fmad=false"}, arch);
    for (auto _ : state) {
        // A new kernel_cache each time, as a new start of the program would make.
        auto entry =
            lesson03::kernel_cache(scratch.path()).cubin(lesson03::saxpy_source, "saxpy.cu", {"--fmad=false"}, arch);
        if (!entry.hit) {
            state.SkipWithError("the cache missed after it was filled");
            break;
        }
        benchmark::DoNotOptimize(entry.cubin);
    }
}

void BM_load_ptx(benchmark::State& state) {
    const lesson03::primary_context context;
    const std::string ptx = lesson03::compile_to_ptx(lesson03::saxpy_source, "saxpy.cu", ptx_options());
    for (auto _ : state) {
        const lesson03::loaded_module module(ptx);
        CUfunction saxpy = module.function("saxpy").get();
        benchmark::DoNotOptimize(saxpy);
    }
    state.SetLabel("the driver may keep its own compilations in ~/.nv/ComputeCache");
}

void BM_load_cubin(benchmark::State& state) {
    const lesson03::primary_context context;
    const std::string cubin = lesson03::compile_to_cubin(lesson03::saxpy_source, "saxpy.cu", cubin_options());
    for (auto _ : state) {
        const lesson03::loaded_module module(cubin);
        CUfunction saxpy = module.function("saxpy").get();
        benchmark::DoNotOptimize(saxpy);
    }
}

// The kernel alone, on device memory filled once, timed with events.
void BM_kernel_driver(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const lesson03::primary_context context;
    const lesson03::loaded_module module(
        lesson03::compile_to_cubin(lesson03::saxpy_source, "saxpy.cu", cubin_options()));
    const lesson03::kernel_function saxpy = module.function("saxpy");
    course::device_array<float> x(n), y(n), out(n);
    x.fill_bytes(0);
    y.fill_bytes(0);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            lesson03::launch_saxpy(saxpy, 2.0f, reinterpret_cast<CUdeviceptr>(x.data()),
                                   reinterpret_cast<CUdeviceptr>(y.data()),
                                   reinterpret_cast<CUdeviceptr>(out.data()), n, threads, s);
        },
        3.0 * n * sizeof(float));
    state.counters["n"] = static_cast<double>(n);
}

void BM_kernel_runtime(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    course::device_array<float> x(n), y(n), out(n);
    x.fill_bytes(0);
    y.fill_bytes(0);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            lesson03::bench::runtime_saxpy(2.0f, x.data(), y.data(), out.data(), n, threads, s);
        },
        3.0 * n * sizeof(float));
    state.counters["n"] = static_cast<double>(n);
}

// Whole programs, host clock: everything from the first driver call to the
// result in host memory.
struct app_inputs {
    std::vector<float> x, y;
    explicit app_inputs(std::size_t n) : x(course::random_floats(n, 1)), y(course::random_floats(n, 2)) {}
};

void BM_app_driver_cached(benchmark::State& state) {
    const app_inputs in(static_cast<std::size_t>(state.range(0)));
    const course::temp_dir scratch("lesson03-bench");
    lesson03::saxpy_options options;
    options.cache_dir = scratch.path();
    lesson03::saxpy_driver(2.0f, in.x, in.y, options);  // fills the cache
    for (auto _ : state) {
        std::vector<float> out = lesson03::saxpy_driver(2.0f, in.x, in.y, options);
        benchmark::DoNotOptimize(out);
    }
    state.counters["n"] = static_cast<double>(in.x.size());
}

void BM_app_driver_nvrtc(benchmark::State& state) {
    const app_inputs in(static_cast<std::size_t>(state.range(0)));
    lesson03::saxpy_options options;
    options.cache_dir.clear();
    for (auto _ : state) {
        std::vector<float> out = lesson03::saxpy_driver(2.0f, in.x, in.y, options);
        benchmark::DoNotOptimize(out);
    }
    state.counters["n"] = static_cast<double>(in.x.size());
}

void BM_app_runtime(benchmark::State& state) {
    const app_inputs in(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        std::vector<float> out = lesson03::bench::runtime_saxpy_app(2.0f, in.x, in.y, threads);
        benchmark::DoNotOptimize(out);
    }
    state.counters["n"] = static_cast<double>(in.x.size());
}

}  // namespace

BENCHMARK(BM_compile_ptx)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_compile_cubin)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_cache_hit)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_load_ptx)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_load_cubin)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_kernel_driver)
    ->ArgName("n")
    ->Arg(1 << 20)->Arg(seed_n)->Arg(1 << 26)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_kernel_runtime)
    ->ArgName("n")
    ->Arg(1 << 20)->Arg(seed_n)->Arg(1 << 26)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_app_driver_cached)->ArgName("n")->Arg(1 << 20)->Arg(seed_n)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_app_driver_nvrtc)->ArgName("n")->Arg(1 << 20)->Arg(seed_n)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_app_runtime)->ArgName("n")->Arg(1 << 20)->Arg(seed_n)->Unit(benchmark::kMillisecond)->UseRealTime();
