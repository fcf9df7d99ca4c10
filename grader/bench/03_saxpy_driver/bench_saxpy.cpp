// lesson03 benchmark: each step of the driver-API program, beside the same
// step through the runtime API.
//   grader bench lesson03        (or run build/bin/lesson03_exercise_bench)
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
//   BM_kernel_driver_going_further   going further: a SAXPY that moves memory at
//                        nearly copy speed, still NVRTC + cuLaunchKernel (going_further.hpp)
//   BM_copy              a device-to-device copy of as many bytes as saxpy moves
//                        at n (12 n), for copy% side by side at the same size
//
// The program's runtime keeps the primary context alive throughout, so no
// row includes creating the context (a few hundred ms, once per process).
#include <cuda.h>
#include <fmt/format.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/random.hpp"
#include "course/temp_dir.hpp"
#include "going_further.hpp"
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

// Runs `saxpy` on random x and y and compares with the host, twice: over
// n - 1 elements (not a multiple of 4, so the tail runs, and out[n - 1] must
// stay untouched) and over all n. Returns what is wrong, or "" when nothing is.
// a = 2 makes a * x exact, so the GPU and the host agree to the bit.
std::string check_wide_saxpy(const lesson03::bench::wide_saxpy& saxpy, std::size_t n) {
    constexpr float a = 2.0f;
    const std::vector<float> x_host = course::random_floats(n, 1), y_host = course::random_floats(n, 2);
    const auto x = course::device_array<float>::from_host(x_host);
    const auto y = course::device_array<float>::from_host(y_host);
    course::device_array<float> out(n);
    for (const std::size_t count : {n - 1, n}) {
        out.fill_bytes(0xFF);  // every float a NaN: an element left unwritten shows
        saxpy(a, reinterpret_cast<CUdeviceptr>(x.data()), reinterpret_cast<CUdeviceptr>(y.data()),
              reinterpret_cast<CUdeviceptr>(out.data()), count, nullptr);
        const std::vector<float> result = out.to_host();  // waits for the kernel
        for (std::size_t i = 0; i < count; ++i) {
            const float expected = a * x_host[i] + y_host[i];
            if (result[i] != expected)
                return fmt::format("going-further saxpy over {} elements: out[{}] = {}, expected {}", count, i,
                                   result[i], expected);
        }
        if (count < n && result[count] == result[count])  // a NaN is the only float unequal to itself
            return fmt::format("going-further saxpy over {} elements wrote out[{}], past the end", count, count);
    }
    return "";
}

// Going further: the wide SAXPY, `packs` 16-byte packs per thread, checked
// once on random data, then timed like BM_kernel_driver (zeros, GPU time).
void BM_kernel_driver_going_further(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto packs = static_cast<unsigned>(state.range(1));
    try {  // a failed compilation or check loses this row, not the program
        const lesson03::primary_context context;
        const lesson03::bench::wide_saxpy saxpy(context, packs);
        if (const std::string wrong = check_wide_saxpy(saxpy, n); !wrong.empty()) {
            state.SkipWithError(wrong.c_str());
            return;
        }
        course::device_array<float> x(n), y(n), out(n);
        x.fill_bytes(0);
        y.fill_bytes(0);
        course::bench::time_gpu(
            state,
            [&](cudaStream_t s) {
                saxpy(2.0f, reinterpret_cast<CUdeviceptr>(x.data()), reinterpret_cast<CUdeviceptr>(y.data()),
                      reinterpret_cast<CUdeviceptr>(out.data()), n, s);
            },
            3.0 * n * sizeof(float));
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    state.counters["n"] = static_cast<double>(n);
    state.counters["packs"] = packs;
}

// The reference point at each size: a device-to-device copy that moves as
// many bytes as saxpy does at n, 12 n (6 n read, 6 n written). The copy% of
// every row compares with a 1 GiB copy (course::bench::gpu()); this row shows
// what a copy itself reaches at the smaller size.
void BM_copy(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const std::size_t bytes = 6 * n;
    course::device_array<unsigned char> from(bytes), to(bytes);
    from.fill_bytes(0);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        2.0 * bytes);
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
// The kernels' sizes: 2^20, the seed's and 2^26, timed with events.
void kernel_sizes(benchmark::internal::Benchmark* b) {
    b->ArgName("n")->Arg(1 << 20)->Arg(seed_n)->Arg(1 << 26)->UseManualTime()->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_kernel_driver)->Apply(kernel_sizes);
BENCHMARK(BM_kernel_runtime)->Apply(kernel_sizes);
// Going further: n as in BM_kernel_driver, then packs per thread (the
// variants to choose from).
BENCHMARK(BM_kernel_driver_going_further)
    ->ArgNames({"n", "packs"})
    ->ArgsProduct({{1 << 20, seed_n, 1 << 26}, {1, 2, 4}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_copy)->Apply(kernel_sizes);
BENCHMARK(BM_app_driver_cached)->ArgName("n")->Arg(1 << 20)->Arg(seed_n)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_app_driver_nvrtc)->ArgName("n")->Arg(1 << 20)->Arg(seed_n)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_app_runtime)->ArgName("n")->Arg(1 << 20)->Arg(seed_n)->Unit(benchmark::kMillisecond)->UseRealTime();
