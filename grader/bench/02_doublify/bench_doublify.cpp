// lesson02 benchmark: doublify and affine on square matrices up to 8192 x 8192,
// for each block shape, against the GPU's own copy bandwidth.
//   grader bench lesson02          (or run build/bin/lesson02_exercise_bench)
//
// The block shapes tell the story of coalescing: a warp is 32 threads of
// consecutive threadIdx.x, so a block 32 wide in x gives each warp 32
// neighbouring floats of one row (one 128-byte stretch of memory). Narrower
// blocks split a warp over several rows; 4 x 64 and 1 x 256 take that to the
// extreme, where most of every memory transaction is wasted.
//
// BM_doublify_going_further is the going-further kernel (going_further.cuh):
// 16-byte accesses along the rows, checked once on random data, then timed
// like BM_doublify, beside BM_copy of the same bytes.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "course/bench.hpp"
#include "course/device_array.hpp"
#include "course/device_span_2d.hpp"
#include "course/error.hpp"
#include "course/random.hpp"
#include "doublify.cuh"
#include "going_further.cuh"

namespace {

// (block.x, block.y) pairs: the four the tests use, then two narrow ones.
const std::vector<std::vector<std::int64_t>> block_shapes = {
    {32, 8}, {8, 32}, {16, 16}, {32, 32}, {4, 64}, {1, 256}};

void size_counters(benchmark::State& state, std::size_t rows, std::size_t cols) {
    state.counters["rows"] = static_cast<double>(rows);
    state.counters["cols"] = static_cast<double>(cols);
    state.counters["n"] = static_cast<double>(rows * cols);
}

void shape_counters(benchmark::State& state, std::size_t rows, std::size_t cols, dim3 block) {
    size_counters(state, rows, cols);
    state.counters["block_x"] = block.x;
    state.counters["block_y"] = block.y;
    state.counters["threads"] = block.x * block.y;
}

void BM_doublify(benchmark::State& state) {
    const auto rows = static_cast<std::size_t>(state.range(0));
    const auto cols = static_cast<std::size_t>(state.range(1));
    const dim3 block(static_cast<unsigned>(state.range(2)), static_cast<unsigned>(state.range(3)));
    course::device_array<float> a(rows * cols);
    a.fill_bytes(0);  // zeros stay zeros however often they are doubled
    const course::device_span_2d<float> view(a.data(), rows, cols);
    course::bench::time_gpu(
        state, [&](cudaStream_t s) { lesson02::doublify(view, block, s); },
        2.0 * rows * cols * sizeof(float));  // read and write each element once
    shape_counters(state, rows, cols, block);
}

void BM_affine(benchmark::State& state) {
    const auto rows = static_cast<std::size_t>(state.range(0));
    const auto cols = static_cast<std::size_t>(state.range(1));
    const dim3 block(static_cast<unsigned>(state.range(2)), static_cast<unsigned>(state.range(3)));
    course::device_array<float> a(rows * cols), out(rows * cols);
    a.fill_bytes(0);
    const course::device_span_2d<const float> in(a.data(), rows, cols);
    const course::device_span_2d<float> result(out.data(), rows, cols);
    course::bench::time_gpu(
        state, [&](cudaStream_t s) { lesson02::affine(in, 1.5f, -0.25f, result, block, s); },
        2.0 * rows * cols * sizeof(float));
    shape_counters(state, rows, cols, block);
}

// The reference point: a device-to-device copy of the same bytes (read + write).
void BM_copy(benchmark::State& state) {
    const auto rows = static_cast<std::size_t>(state.range(0));
    const auto cols = static_cast<std::size_t>(state.range(1));
    course::device_array<float> a(rows * cols), c(rows * cols);
    a.fill_bytes(0);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) {
            CUDA_CHECK(cudaMemcpyAsync(c.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, s));
        },
        2.0 * rows * cols * sizeof(float));
    size_counters(state, rows, cols);
}

// Runs doublify_going_further on random data and compares with the host
// (doubling a float is exact, so the bits must agree), twice: on the whole
// rows x cols matrix (the float4 path), and on a view of its first cols - 1
// columns, whose rows are no whole number of packs (the one-float path),
// where the last column of every row must stay as it was. Returns what is
// wrong, or "" when nothing is.
std::string check_doublify_going_further(std::size_t rows, std::size_t cols, unsigned per_thread, bool streaming) {
    const std::vector<float> before = course::random_floats(rows * cols, 7);
    auto a = course::device_array<float>::from_host(before);
    for (const std::size_t view_cols : {cols, cols - 1}) {
        a.copy_from_host(before.data(), before.size());
        lesson02::bench::doublify_going_further(course::device_span_2d<float>(a.data(), rows, view_cols, cols),
                                                per_thread, streaming);
        const std::vector<float> after = a.to_host();  // waits for the kernel
        for (std::size_t i = 0; i < after.size(); ++i) {
            const bool inside = i % cols < view_cols;
            const float expected = inside ? 2.0f * before[i] : before[i];
            if (after[i] != expected)
                return "going-further doublify of a " + std::to_string(rows) + " x " + std::to_string(view_cols) +
                       " view (pitch " + std::to_string(cols) + "): element (" + std::to_string(i / cols) + ", " +
                       std::to_string(i % cols) + ") is " + std::to_string(after[i]) + ", expected " +
                       std::to_string(expected) + (inside ? "" : " (outside the view: it must not change)");
        }
    }
    return "";
}

// Going further: rows and cols, then the variant: rows per thread and
// streaming cache hints (0 or 1).
void BM_doublify_going_further(benchmark::State& state) {
    const auto rows = static_cast<std::size_t>(state.range(0));
    const auto cols = static_cast<std::size_t>(state.range(1));
    const auto per_thread = static_cast<unsigned>(state.range(2));
    const bool streaming = state.range(3) != 0;
    try {
        if (const std::string wrong = check_doublify_going_further(rows, cols, per_thread, streaming);
            !wrong.empty()) {
            state.SkipWithError(wrong.c_str());
            return;
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    course::device_array<float> a(rows * cols);
    a.fill_bytes(0);  // as BM_doublify: zeros stay zeros
    const course::device_span_2d<float> view(a.data(), rows, cols);
    course::bench::time_gpu(
        state,
        [&](cudaStream_t s) { lesson02::bench::doublify_going_further(view, per_thread, streaming, s); },
        2.0 * rows * cols * sizeof(float));
    size_counters(state, rows, cols);
    state.counters["per_thread"] = per_thread;
    state.counters["streaming"] = streaming;
}

// Square matrices 1024 .. 8192 on a side, every block shape.
void matrix_args(benchmark::internal::Benchmark* b) {
    b->ArgNames({"rows", "cols", "bx", "by"});
    for (std::int64_t side : {1024, 2048, 4096, 8192})
        for (const auto& shape : block_shapes) b->Args({side, side, shape[0], shape[1]});
}

// The going further's variants, (rows per thread, streaming hints), at every
// size BM_copy has.
void going_further_args(benchmark::internal::Benchmark* b) {
    b->ArgNames({"rows", "cols", "per_thread", "streaming"});
    for (std::int64_t side : {1024, 2048, 4096, 8192})
        for (const auto& [per_thread, streaming] : {std::pair{2, 0}, std::pair{4, 0}, std::pair{2, 1}})
            b->Args({side, side, per_thread, streaming});
}

}  // namespace

BENCHMARK(BM_doublify)->Apply(matrix_args)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_affine)->Apply(matrix_args)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_copy)
    ->ArgNames({"rows", "cols"})
    ->Args({1024, 1024})
    ->Args({2048, 2048})
    ->Args({4096, 4096})
    ->Args({8192, 8192})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_doublify_going_further)->Apply(going_further_args)->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
