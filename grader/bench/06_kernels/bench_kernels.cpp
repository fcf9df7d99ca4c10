// lesson06 benchmark: user-defined kernels against the GPU's copy bandwidth
// and the library baselines.
//   grader bench lesson06        (or run build/bin/lesson06_exercise_bench)
//
//   BM_multiply_add        the seed's exercise 1, y = x1 * x2 + B: sizes 1e4 to
//                          1e8 by block sizes 32 to 1024, for the plot
//   BM_multiply_add_plain  the same with a plain one-element-per-thread kernel
//   BM_copy                a device-to-device copy of the same sizes (read + write)
//   BM_sum, BM_max, BM_l2_norm, BM_row_l2_norm   reductions of 2^28 floats
//   BM_cub_sum             CUB's sum of the same 2^28 floats
//   BM_fused, BM_unfused   y = exp(a sin x + cos y): one kernel against three
//   BM_multiply_add_vectorized   y = x1 * x2 + B from a lambda through vectorize,
//                          against BM_multiply_add's hand-written functor
//   BM_affine_broadcast    out = x * scale + shift with scale a row and shift a
//                          column, broadcast: what the zero strides cost
//   BM_sum_going_further, BM_l2_norm_going_further   going further: the one-pass
//                          reduction of going_further.hpp, beside BM_cub_sum
//
// GB/s counts the bytes each call must move (read + written), so the columns
// compare directly: fused and unfused declare what each really moves (12 and
// 28 bytes an element), and their times show what fusion saves.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "course/bench.hpp"
#include "course/device_array.hpp"
#include "course/random.hpp"
#include "elementwise_ops.cuh"
#include "fusion.cuh"
#include "going_further.hpp"
#include "reductions.cuh"
#include "vectorized_ops.cuh"

namespace {

course::device_array<float> zeros(std::size_t n) {
    course::device_array<float> a(n);
    a.fill_bytes(0);
    return a;
}

void set_counters(benchmark::State& state, std::size_t n, int threads = 0) {
    state.counters["n"] = static_cast<double>(n);
    if (threads > 0) state.counters["threads"] = threads;
}

// --- y = x1 * x2 + B -------------------------------------------------------------

void BM_multiply_add(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const int threads = static_cast<int>(state.range(1));
    const auto x1 = zeros(n), x2 = zeros(n);
    course::device_array<float> y(n);
    course::bench::time_gpu(
        state, [&](cudaStream_t s) { lesson06::multiply_add(x1.view(), x2.view(), 0.5f, y.view(), threads, s); },
        3.0 * n * sizeof(float));
    set_counters(state, n, threads);
}

void BM_multiply_add_plain(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const int threads = static_cast<int>(state.range(1));
    const auto x1 = zeros(n), x2 = zeros(n);
    course::device_array<float> y(n);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            lesson06::bench::plain_multiply_add(x1.data(), x2.data(), 0.5f, y.data(), n,
                                                static_cast<unsigned>(threads), s);
        },
        3.0 * n * sizeof(float));
    set_counters(state, n, threads);
}

// The reference point: a device-to-device copy (one read, one write an element).
void BM_copy(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto a = zeros(n);
    course::device_array<float> c(n);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(c.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, s));
        },
        2.0 * n * sizeof(float));
    set_counters(state, n);
}

// --- Reductions: one read of n floats each -------------------------------------

using reduce_fn = void (*)(course::device_span<const float>, course::device_span<float>, cudaStream_t);

void time_reduction(benchmark::State& state, reduce_fn reduce) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto x = zeros(n);
    course::device_array<float> out(1);
    course::bench::time_gpu(state, [&](cudaStream_t s) { reduce(x.view(), out.view(), s); },
                            1.0 * n * sizeof(float));
    set_counters(state, n);
}

void BM_sum(benchmark::State& state) { time_reduction(state, lesson06::sum); }
void BM_max(benchmark::State& state) { time_reduction(state, lesson06::max_value); }
void BM_l2_norm(benchmark::State& state) { time_reduction(state, lesson06::l2_norm); }

void BM_row_l2_norm(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto side = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(n))));
    const auto x = zeros(side * side);
    course::device_array<float> out(side);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            lesson06::row_l2_norm(course::device_span_2d<const float>(x.data(), side, side), out.view(), s);
        },
        1.0 * side * side * sizeof(float));
    set_counters(state, side * side);
    state.counters["rows"] = static_cast<double>(side);
}

void BM_cub_sum(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto x = zeros(n);
    course::device_array<float> out(1);
    lesson06::bench::cub_sum sum(n);
    course::bench::time_gpu(state, [&](cudaStream_t s) { sum(x.data(), out.data(), s); },
                            1.0 * n * sizeof(float));
    set_counters(state, n);
}

// --- Going further: one-pass sum and L2 norm -------------------------------------------

// How far a float sum of random values may be from the exact one: the bound
// of grader/tests/06_kernels/test_reduction.cpp (sum_bound), which explains
// it. u is float's unit roundoff, 2^-24.
double sum_bound(double u, std::size_t n, double sum_of_squares, double sum) {
    return 4.0 * u * std::sqrt(static_cast<double>(n)) * (std::sqrt(sum_of_squares) + std::fabs(sum)) +
           u * std::fabs(sum);
}

// Runs the going-further reduction (sum, or L2 norm if `l2`) over `view`
// and returns the result (waits for it).
double reduce_once(lesson06::bench::one_pass_reduction& reduce, bool l2, course::device_span<const float> view) {
    course::device_array<float> out(1);
    if (l2) reduce.l2_norm(view, out.data(), nullptr);
    else reduce.sum(view, out.data(), nullptr);
    return out.to_host()[0];
}

// Checks the going-further reduction twice; returns what is wrong, or "".
//  1. Exactly, on 2^22 + 5 values of +1 or -1 from x[1] on: off a 16-byte
//     boundary, so the head, the packs and the tail all run. Every partial
//     sum is a whole number below 2^24, exact in float in any order, so the
//     sum must be exact, and the L2 norm the float nearest sqrt(count): one
//     element skipped or counted twice shows.
//  2. On all of x, random floats in [-1, 1), against a double-precision
//     reference within the graded test's bound; `relative_error` gets
//     |result - reference| / |reference|.
std::string check_going_further(lesson06::bench::one_pass_reduction& reduce, bool l2, course::device_array<float>& x,
                                double& relative_error) {
    const char* name = l2 ? "l2_norm" : "sum";
    const std::size_t n{x.size()};
    const std::size_t count = std::min<std::size_t>(n - 1, (std::size_t{1} << 22) + 5);
    std::vector<float> signs = course::random_floats(count + 1, 13);
    long long exact_sum = 0;
    for (float& v : signs) {
        v = v < 0 ? -1.0f : 1.0f;
        exact_sum += static_cast<long long>(v);
    }
    exact_sum -= static_cast<long long>(signs[0]);  // element 0 is outside the view
    x.copy_from_host(signs.data(), signs.size());
    const double exact = l2 ? static_cast<float>(std::sqrt(static_cast<double>(count))) : exact_sum;
    if (const double actual = reduce_once(reduce, l2, course::device_span<const float>(x.data() + 1, count));
        actual != exact)
        return fmt::format("going-further {} of {} values +-1 from element 1: {}, exactly {} expected", name, count,
                           actual, exact);

    const std::vector<float> host = course::random_floats(n, 11);
    x.copy_from_host(host.data(), n);
    double sum = 0, squares = 0, fourth_powers = 0;
    for (const float value : host) {
        const double v = value;
        sum += v;
        squares += v * v;
        fourth_powers += v * v * v * v;
    }
    constexpr double u = 1.0 / (1 << 24);
    double expected = sum, allowed = sum_bound(u, n, squares, sum);
    if (l2) {  // as the graded test: the bound on the sum of squares, halved by the square root
        expected = std::sqrt(squares);
        allowed = (0.5 * sum_bound(u, n, fourth_powers, squares) / squares + 2 * u) * expected;
    }
    const double actual = reduce_once(reduce, l2, x.view());
    if (!(std::fabs(actual - expected) <= allowed))
        return fmt::format("going-further {} of {} random floats: {} but the double-precision reference is {} "
                           "(allowed: +-{:.3g})",
                           name, n, actual, expected, allowed);
    relative_error = std::fabs(actual - expected) / std::fabs(expected);
    return "";
}

// n, then the variant: threads per block (256 or 512), streaming loads (0 or 1).
void time_going_further(benchmark::State& state, bool l2) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto threads = static_cast<int>(state.range(1));
    const bool streaming = state.range(2) != 0;
    course::device_array<float> x(n), out(1);
    double relative_error = 0;
    try {
        lesson06::bench::one_pass_reduction reduce(static_cast<unsigned>(threads), streaming);
        if (const std::string wrong = check_going_further(reduce, l2, x, relative_error); !wrong.empty()) {
            state.SkipWithError(wrong.c_str());
            return;
        }
        x.fill_bytes(0);  // timed on zeros, as BM_sum and BM_cub_sum are
        course::bench::time_gpu(
            state,
            [&](cudaStream_t s) {
                if (l2) reduce.l2_norm(x.view(), out.data(), s);
                else reduce.sum(x.view(), out.data(), s);
            },
            1.0 * n * sizeof(float));
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    set_counters(state, n, threads);
    state.counters["streaming"] = streaming;
    // Float accumulators against a double reference, on random data in [-1, 1).
    state.counters["rel_err"] = relative_error;
}

void BM_sum_going_further(benchmark::State& state) { time_going_further(state, false); }
void BM_l2_norm_going_further(benchmark::State& state) { time_going_further(state, true); }

// --- Fusion ----------------------------------------------------------------------------

void BM_fused(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    if (!course::bench::device_memory_for(state, 2.0 * n * sizeof(float))) return;
    const auto x = zeros(n);
    auto y = zeros(n);
    course::bench::time_gpu(
        state, [&](cudaStream_t s) { lesson06::fused_update(1.5f, x.view(), y.view(), s); },
        3.0 * n * sizeof(float));  // read x, read y, write y
    set_counters(state, n);
}

void BM_unfused(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    if (!course::bench::device_memory_for(state, 3.0 * n * sizeof(float))) return;
    const auto x = zeros(n);
    auto y = zeros(n);
    course::device_array<float> scratch(n);
    course::bench::time_gpu(
        state, [&](cudaStream_t s) { lesson06::unfused_update(1.5f, x.view(), y.view(), scratch.view(), s); },
        7.0 * n * sizeof(float));  // 2 + 3 + 2 arrays' worth: x->t, (t, y)->t, t->y
    set_counters(state, n);
}

// --- Kernels from a lambda -----------------------------------------------------------

// The same y = x1 * x2 + B as BM_multiply_add at 256 threads, from a lambda:
// the two should take the same time, since both are the same launcher with
// a loop body inlined.
void BM_multiply_add_vectorized(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto x1 = zeros(n), x2 = zeros(n);
    course::device_array<float> y(n);
    course::bench::time_gpu(
        state, [&](cudaStream_t s) { lesson06::multiply_add_vectorized(x1.view(), x2.view(), 0.5f, y.view(), s); },
        3.0 * n * sizeof(float));
    set_counters(state, n, 256);
}

// A square matrix of about n elements times a row plus a column: the row and
// the column are read from cache, so the bytes are x's and out's.
void BM_affine_broadcast(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto side = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(n))));
    const auto x = zeros(side * side), row = zeros(side), column = zeros(side);
    course::device_array<float> out(side * side);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            lesson06::affine(course::device_span_2d<const float>(x.data(), side, side),
                             course::device_span_2d<const float>(row.data(), 1, side),
                             course::device_span_2d<const float>(column.data(), side, 1),
                             course::device_span_2d<float>(out.data(), side, side), s);
        },
        2.0 * side * side * sizeof(float));
    set_counters(state, side * side);
    state.counters["rows"] = static_cast<double>(side);
}

// The seed's sweep: 1e4 .. 1e8 elements by 32 .. 1024 threads a block.
const std::vector<std::int64_t> seed_sizes = {10'000, 100'000, 1'000'000, 10'000'000, 100'000'000};
const std::vector<std::int64_t> block_sizes = {32, 64, 128, 256, 512, 1024};
constexpr std::int64_t reduction_size = std::int64_t{1} << 28;

}  // namespace

BENCHMARK(BM_multiply_add)
    ->ArgNames({"n", "threads"})
    ->ArgsProduct({seed_sizes, block_sizes})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_multiply_add_plain)
    ->ArgNames({"n", "threads"})
    ->ArgsProduct({seed_sizes, block_sizes})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_multiply_add_vectorized)->ArgName("n")->ArgsProduct({seed_sizes})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_affine_broadcast)->ArgName("n")->ArgsProduct({seed_sizes})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_copy)->ArgName("n")->ArgsProduct({seed_sizes})->UseManualTime()->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_sum)->ArgName("n")->Arg(reduction_size)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_max)->ArgName("n")->Arg(reduction_size)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_l2_norm)->ArgName("n")->Arg(reduction_size)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_row_l2_norm)->ArgName("n")->Arg(reduction_size)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_cub_sum)->ArgName("n")->Arg(reduction_size)->UseManualTime()->Unit(benchmark::kMicrosecond);
// Going further: n, then the variants to choose from, (threads, streaming loads).
void going_further_args(benchmark::internal::Benchmark* b) {
    b->ArgNames({"n", "threads", "streaming"});
    b->Args({reduction_size, 256, 0})->Args({reduction_size, 512, 0})->Args({reduction_size, 512, 1});
}
BENCHMARK(BM_sum_going_further)->Apply(going_further_args)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_l2_norm_going_further)->Apply(going_further_args)->UseManualTime()->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_fused)->ArgName("n")->Arg(1 << 24)->Arg(1 << 28)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_unfused)->ArgName("n")->Arg(1 << 24)->Arg(1 << 28)->UseManualTime()->Unit(benchmark::kMicrosecond);
