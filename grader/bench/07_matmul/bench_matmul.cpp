// lesson07 benchmark: GFLOP/s of every version of C = A x B for square
// matrices from 256 to 8192, with cuBLAS (float32, and TF32 for comparison).
//   grader bench lesson07          (or run build/bin/lesson07_exercise_bench)
//
// The going_further rows time sgemm_going_further.cu, the README's
// "Going further" kernel, beside cuBLAS: a reference, like cuBLAS, listed
// among the lesson's BASELINES (lessons/07_matmul/CMakeLists.txt).
//
// Each row reports GFLOP/s (2 n^3 per product) and, for a roofline, the
// arithmetic intensity of the product itself: its FLOPs over the bytes it
// must move at the least (read A and B once, write C once: 12 n^2 bytes).
// The memory roof is the measured copy bandwidth in the output's context;
// the compute roof is what cuBLAS reaches.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/device_array.hpp"
#include "course/random.hpp"
#include "matmul.cuh"
#include "sgemm_going_further.cuh"

namespace {

enum class version { naive, tiled, register_blocked, cublas, cublas_tf32, going_further };

// n x n inputs with random values (zeros would draw less power and flatter
// the clocks), made once per size and shared by every version.
struct square_inputs {
    std::size_t n;
    course::device_array<float> a, b, c;

    explicit square_inputs(std::size_t size)
        : n(size), a(size * size), b(size * size), c(size * size) {
        a.copy_from_host(course::random_floats(size * size, 1).data(), size * size);
        b.copy_from_host(course::random_floats(size * size, 2).data(), size * size);
    }
};

square_inputs& inputs(std::size_t n) {
    static std::map<std::size_t, std::unique_ptr<square_inputs>> made;
    auto& slot = made[n];
    if (!slot) slot = std::make_unique<square_inputs>(n);
    return *slot;
}

void BM_matmul(benchmark::State& state, version v) {
    const auto n = static_cast<std::size_t>(state.range(0));
    square_inputs& in = inputs(n);
    const lesson07::const_matrix a(in.a.data(), n, n), b(in.b.data(), n, n);
    const lesson07::matrix c(in.c.data(), n, n);
    const double flops = 2.0 * n * n * n;
    const double bytes = 3.0 * n * n * sizeof(float);
    try {
        // The cuBLAS handle is made before the timing, once, as a program would.
        std::unique_ptr<lesson07::cublas_matmul> cublas;
        if (v == version::cublas || v == version::cublas_tf32)
            cublas = std::make_unique<lesson07::cublas_matmul>(v == version::cublas_tf32);
        if (v == version::going_further) {
            // Once per size: Google Benchmark calls this function several
            // times per row while it picks an iteration count.
            static std::set<std::size_t> checked;
            if (!checked.count(n)) {
                const std::string problem = lesson07::going_further::differs_from_cublas(a, b);
                if (!problem.empty()) {
                    state.SkipWithError(problem.c_str());
                    return;
                }
                checked.insert(n);
            }
        }
        course::bench::time_gpu(
            state,
            [&](cudaStream_t s) {
                switch (v) {
                    case version::naive: lesson07::matmul_naive(a, b, c, s); break;
                    case version::tiled: lesson07::matmul_tiled(a, b, c, s); break;
                    case version::register_blocked:
                        lesson07::matmul_register_blocked(a, b, c, s);
                        break;
                    case version::cublas:
                    case version::cublas_tf32: (*cublas)(a, b, c, s); break;
                    case version::going_further:
                        lesson07::going_further::sgemm(a, b, c, s);
                        break;
                }
            },
            bytes, flops);
    } catch (const std::exception& e) {
        // An unfinished version (course::todo) skips its rows, not the run.
        state.SkipWithError(e.what());
        return;
    }
    state.counters["n"] = static_cast<double>(n);
    state.counters["intensity"] = flops / bytes;  // FLOP per byte, for the roofline's x axis
}

}  // namespace

#define COURSE_MATMUL_BENCHMARK(name, ...)          \
    BENCHMARK_CAPTURE(BM_matmul, name, __VA_ARGS__) \
        ->ArgName("n")                              \
        ->RangeMultiplier(2)                        \
        ->Range(256, 8192)                          \
        ->UseManualTime()                           \
        ->Unit(benchmark::kMillisecond)

COURSE_MATMUL_BENCHMARK(naive, version::naive);
COURSE_MATMUL_BENCHMARK(tiled, version::tiled);
COURSE_MATMUL_BENCHMARK(register_blocked, version::register_blocked);
COURSE_MATMUL_BENCHMARK(cublas, version::cublas);
COURSE_MATMUL_BENCHMARK(cublas_tf32, version::cublas_tf32);
// The README's "Going further" kernel (sgemm_going_further.cu).
COURSE_MATMUL_BENCHMARK(going_further, version::going_further);
