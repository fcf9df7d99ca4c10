// Known-wrong version (grader/mutants): the broadcast row is read at i / cols
// (the row of element i) instead of i % cols (its column).
#pragma once
// Lesson 06: the generic elementwise launcher, reference solution.
//
//     lesson06::elementwise({threads, stream}, op, out, input(x1), input(x2));
//
// runs out[i] = op(x1[i], x2[i]) for every i < out.size() in one kernel: the
// C++ counterpart of CuPy's ElementwiseKernel. `op` is a functor or a
// __device__ lambda, the loop body; the launcher supplies the loop, the
// indexing, the 16-byte loads and the launch.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "course/device_span.hpp"
#include "course/error.hpp"
#include "device_helpers.cuh"

namespace lesson06 {

// How to launch: threads per block and the stream.
struct launch_config {
    unsigned threads = 256;
    cudaStream_t stream = nullptr;
};

// --- Inputs ------------------------------------------------------------------
// An input says what value it holds at index i of the output, one element at
// a time (at) or a pack at a time (load), and whether its pack loads are
// possible (vectorizable). All inputs of one launch hold the same type T as
// the output.

// An array with one element per output element: value i is data[i].
template <class T>
struct dense_input {
    using value_type = T;
    const T* data;

    __device__ T at(std::size_t i) const { return data[i]; }
    // Elements i .. i + width - 1; i is a multiple of the pack width.
    __device__ pack<T> load(std::size_t i) const { return load_pack(data + i); }
    bool vectorizable() const { return is_aligned_16(data); }
};

// Broadcasting: a row of `cols` values repeated over every row of a
// rows x cols output, as NumPy broadcasts shape (cols,) against (rows, cols).
// Output element i lies in column i % cols, so that is the value it sees.
template <class T>
struct row_broadcast {
    using value_type = T;
    const T* row;
    std::size_t cols;

    __device__ T at(std::size_t i) const { return row[i / cols]; }  // MUTANT: the row, not the column
    // A pack never straddles two rows when cols is a multiple of the width
    // (vectorizable checks it), so the pack at i is the pack at column i % cols.
    __device__ pack<T> load(std::size_t i) const { return load_pack(row + i / cols); }  // MUTANT
    bool vectorizable() const { return cols % pack<T>::width == 0 && is_aligned_16(row); }
};

template <class T>
dense_input<T> input(course::device_span<const T> x) {
    return {x.data()};
}
template <class T>
row_broadcast<T> broadcast_row(course::device_span<const T> row) {
    return {row.data(), row.size()};
}

namespace detail {

// op(loaded[0].v[k], loaded[1].v[k], ...): element k of every input's pack.
template <class Op, class T, std::size_t... I>
__device__ __forceinline__ T apply_lane(const Op& op, const pack<T>* loaded, int k,
                                        std::index_sequence<I...>) {
    return static_cast<T>(op(loaded[I].v[k]...));
}

}  // namespace detail

// --- Kernels -----------------------------------------------------------------
// No __restrict__ anywhere: the output may be one of the inputs (an update in
// place such as y = f(x, y)). That is safe because each element is read and
// written by the same thread, reading first.

// One element per step of a grid-stride loop: thread t handles t, t + stride,
// t + 2 stride, ... where stride is the number of threads in the grid. Any
// grid size covers any n, and consecutive threads touch consecutive elements
// at every step, so each warp's accesses are coalesced.
template <class T, class Op, class... In>
__global__ void elementwise_kernel(Op op, course::device_span<T> out, In... in) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < out.size(); i += stride)
        out[i] = static_cast<T>(op(in.at(i)...));
}

// The same with one 16-byte pack per input and per output at each step, for
// when every span is 16-byte aligned. The last n % width elements do not fill
// a pack: the grid's first threads finish them one by one.
template <class T, class Op, class... In>
__global__ void elementwise_vector_kernel(Op op, course::device_span<T> out, In... in) {
    constexpr int width = pack<T>::width;
    const std::size_t n = out.size();
    const std::size_t whole = n / width * width;  // elements that fill packs
    const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = thread * width; i < whole; i += stride * width) {
        const pack<T> loaded[] = {in.load(i)...};  // every load issued before any arithmetic
        pack<T> result;
#pragma unroll
        for (int k = 0; k < width; ++k)
            result.v[k] = detail::apply_lane(op, loaded, k, std::index_sequence_for<In...>{});
        store_pack(out.data() + i, result);
    }
    for (std::size_t i = whole + thread; i < n; i += stride) out[i] = static_cast<T>(op(in.at(i)...));
}

// Up to this many waves of blocks before threads loop over several items:
// one item per thread for any size a test or benchmark uses (see grid_for).
inline constexpr unsigned elementwise_waves = 128;

// --- The launcher --------------------------------------------------------------

// out[i] = op(in.at(i)...) for every i < out.size(), launched on
// config.stream with config.threads threads a block; returns without waiting.
// Every input must cover out.size() elements (the caller checks sizes).
template <class T, class Op, class... In>
void elementwise(launch_config config, Op op, course::device_span<T> out, In... in) {
    static_assert(sizeof...(In) >= 1, "an elementwise kernel reads at least one input");
    static_assert((std::is_same_v<typename In::value_type, T> && ...),
                  "every input holds the output's element type");
    if (out.empty()) return;  // a grid of 0 blocks is an invalid launch, not a no-op

    // 16-byte loads need every span on a 16-byte boundary; one misaligned
    // span sends the whole launch down the element-by-element path.
    const bool vectorizable = is_aligned_16(out.data()) && (in.vectorizable() && ...);
    if (vectorizable) {
        constexpr int width = pack<T>::width;
        auto* kernel = &elementwise_vector_kernel<T, Op, In...>;
        const std::size_t packs = (out.size() + width - 1) / width;
        const unsigned grid = grid_for(kernel, packs, config.threads, elementwise_waves);
        kernel<<<grid, config.threads, 0, config.stream>>>(op, out, in...);
    } else {
        auto* kernel = &elementwise_kernel<T, Op, In...>;
        const unsigned grid = grid_for(kernel, out.size(), config.threads, elementwise_waves);
        kernel<<<grid, config.threads, 0, config.stream>>>(op, out, in...);
    }
    // A refused launch (too many threads, say) is reported only here.
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace lesson06
