#pragma once
// Lesson 06: the generic reduction, reference solution.
//
//     lesson06::reduce(x, out, spec, stream);       // out[0] = post_map(reduce over i of map(x[i]))
//     lesson06::reduce_rows(x, out, spec, stream);  // out[r] = the same over row r
//
// `spec` is a reduction<T, Map, Reduce, PostMap>: the identity and three
// functors, the four arguments of CuPy's ReductionKernel.
//
// The whole-array reduction is two kernels, both on `stream`:
//   1. reduce_blocks: a grid that just fills the GPU; every thread folds
//      map(x[i]) over its share of x, reading 16 bytes at a time; each block
//      combines its threads' values (warp shuffles, then shared memory) and
//      writes one partial result.
//   2. finish: one block combines the partials and applies the post-map,
//      once, to the total.
// No atomics: the order of the operations depends only on n and the grid, so
// the same input gives the same bits every time.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>

#include "course/device_span.hpp"
#include "course/device_span_2d.hpp"
#include "course/error.hpp"
#include "device_helpers.cuh"

namespace lesson06 {

template <class T, class Map, class Reduce, class PostMap>
struct reduction {
    T identity;        // reduce(identity, a) == a; the result of an empty reduction (before post-map)
    Map map;           // applied to each element, once
    Reduce reduce;     // combines two partial results; associative and commutative
    PostMap post_map;  // applied to the final result, once
};

namespace detail {

// Threads per block of both kernels: 8 warps. A multiple of 32, so every warp
// is full and the shuffles can name all 32 lanes.
inline constexpr unsigned reduce_threads = 256;
// Packs each thread loads before it adds any of them: more bytes in flight
// per thread hide more of the memory latency.
inline constexpr int packs_in_flight = 4;

// The 32 lanes of a warp combine their values in 5 steps: lane i takes lane
// i + 16's value, then i + 8's, ..., then i + 1's, read from its register (no
// shared memory). The mask 0xffffffff makes all 32 lanes meet at each shuffle,
// so all 32 must be active: a full warp. Lane 0 ends with the warp's result.
template <class T, class Reduce>
__device__ __forceinline__ T warp_reduce(T value, const Reduce& reduce) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        value = reduce(value, __shfl_down_sync(0xffffffffu, value, offset));
    return value;
}

// The block's threads combine their values; thread 0 gets the result.
// Step 1: each warp reduces itself with shuffles. Step 2: lane 0 of every warp
// puts its warp's result in shared memory. Step 3: the first warp reads those
// (at most 32) values and reduces them with shuffles again.
// Call it once per kernel, from every thread of the block.
template <class T, class Reduce>
__device__ T block_reduce(T value, const Reduce& reduce, T identity) {
    __shared__ T warp_results[32];  // one per warp; 1024 threads make at most 32 warps
    const unsigned lane = threadIdx.x % 32;
    const unsigned warp = threadIdx.x / 32;
    value = warp_reduce(value, reduce);
    if (lane == 0) warp_results[warp] = value;
    // Every warp's result must be in shared memory before the first warp reads
    // them: warps run independently, and without this barrier warp 0 can read
    // a slot its owner has not written yet (a race).
    __syncthreads();
    if (warp == 0) {
        const unsigned warps = blockDim.x / 32;
        value = lane < warps ? warp_results[lane] : identity;
        value = warp_reduce(value, reduce);
    }
    return value;
}

// This thread's fold of map(x[i]) over the elements first, first + stride,
// ... of x[0, n): x is read as 16-byte packs from its first 16-byte boundary
// on; the few elements before that boundary (the head) and after the last
// whole pack (the tail) are read one by one. Several accumulators, one per
// lane of a pack, so consecutive additions do not wait for each other.
template <class T, class Spec>
__device__ T thread_fold(const T* x, std::size_t n, const Spec& spec, std::size_t first,
                         std::size_t stride) {
    constexpr int width = pack<T>::width;
    constexpr int unroll = packs_in_flight;
    std::size_t head = elements_to_alignment(x);
    if (head > n) head = n;
    const std::size_t packs = (n - head) / width;
    const T* body = x + head;

    T acc[width];
#pragma unroll
    for (int k = 0; k < width; ++k) acc[k] = spec.identity;

    std::size_t p = first;
    // `unroll` packs at a time: all loads first, then the arithmetic.
    for (; p + (unroll - 1) * stride < packs; p += unroll * stride) {
        pack<T> loaded[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) loaded[u] = load_pack(body + (p + u * stride) * width);
#pragma unroll
        for (int u = 0; u < unroll; ++u)
#pragma unroll
            for (int k = 0; k < width; ++k) acc[k] = spec.reduce(acc[k], spec.map(loaded[u].v[k]));
    }
    for (; p < packs; p += stride) {  // the packs left over, one at a time
        const pack<T> loaded = load_pack(body + p * width);
#pragma unroll
        for (int k = 0; k < width; ++k) acc[k] = spec.reduce(acc[k], spec.map(loaded.v[k]));
    }
    // Head and tail hold fewer than `width` elements each: one per thread.
    if (first < head) acc[0] = spec.reduce(acc[0], spec.map(x[first]));
    const std::size_t tail = head + packs * width;
    if (tail + first < n) acc[0] = spec.reduce(acc[0], spec.map(x[tail + first]));

    T total = acc[0];
#pragma unroll
    for (int k = 1; k < width; ++k) total = spec.reduce(total, acc[k]);
    return total;
}

// Pass 1: each block writes the reduction (not yet post-mapped) of its share of x.
template <class T, class Spec>
__global__ void reduce_blocks_kernel(course::device_span<const T> x, T* partials, Spec spec) {
    const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    const T value = thread_fold(x.data(), x.size(), spec, first, stride);
    const T block_total = block_reduce(value, spec.reduce, spec.identity);
    if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
}

// Pass 2, one block: combines the partials (already mapped: only reduce, no
// map) and applies the post-map once, to the total.
template <class T, class Spec>
__global__ void finish_kernel(const T* partials, unsigned count, T* out, Spec spec) {
    T value = spec.identity;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) value = spec.reduce(value, partials[i]);
    value = block_reduce(value, spec.reduce, spec.identity);
    if (threadIdx.x == 0) out[0] = spec.post_map(value);
}

// Along axis 1: block r reduces row r and writes post_map of it to out[r].
template <class T, class Spec>
__global__ void reduce_rows_kernel(course::device_span_2d<const T> x, T* out, Spec spec) {
    const std::size_t row = blockIdx.x;
    // Each row has its own alignment when the pitch is not a multiple of 16
    // bytes: thread_fold finds each row's first 16-byte boundary.
    const T value = thread_fold(x.row(row).data(), x.cols(), spec, threadIdx.x, blockDim.x);
    const T row_total = block_reduce(value, spec.reduce, spec.identity);
    if (threadIdx.x == 0) out[row] = spec.post_map(row_total);
}

}  // namespace detail

// out[0] = spec.post_map(reduction of spec.map(x[i]) over every i); queued on
// `stream`, nothing waits for it.
template <class T, class Map, class Reduce, class PostMap>
void reduce(course::device_span<const T> x, course::device_span<T> out,
            const reduction<T, Map, Reduce, PostMap>& spec, cudaStream_t stream) {
    using spec_type = reduction<T, Map, Reduce, PostMap>;
    if (out.empty()) throw std::invalid_argument("reduce: out must have room for the result");
    constexpr unsigned threads = detail::reduce_threads;

    // Work per thread for the grid: packs (the head and tail add at most one
    // element per thread). An empty x needs no blocks at all.
    auto* blocks_kernel = &detail::reduce_blocks_kernel<T, spec_type>;
    const std::size_t packs = (x.size() + pack<T>::width - 1) / pack<T>::width;
    const unsigned blocks = x.empty() ? 0u : grid_for(blocks_kernel, packs, threads);

    stream_scratch<T> partials(blocks, stream);
    if (blocks > 0) {
        blocks_kernel<<<blocks, threads, 0, stream>>>(x, partials.get(), spec);
        CUDA_CHECK(cudaGetLastError());
    }
    // Also for an empty x: it writes post_map(identity).
    detail::finish_kernel<T, spec_type><<<1, threads, 0, stream>>>(partials.get(), blocks, out.data(), spec);
    CUDA_CHECK(cudaGetLastError());
}

// out[r] = spec.post_map(reduction of spec.map(x(r, c)) over every c), for
// every row r; queued on `stream`.
template <class T, class Map, class Reduce, class PostMap>
void reduce_rows(course::device_span_2d<const T> x, course::device_span<T> out,
                 const reduction<T, Map, Reduce, PostMap>& spec, cudaStream_t stream) {
    using spec_type = reduction<T, Map, Reduce, PostMap>;
    if (out.size() < x.rows()) throw std::invalid_argument("reduce_rows: out needs one element per row");
    if (x.rows() == 0) return;
    if (x.rows() > 0x7fffffffu) throw std::invalid_argument("reduce_rows: too many rows for one grid");
    // One block per row; blocks shrink to the row when rows are short, so a
    // 7-column row does not keep 256 threads waiting for 7 of them. Rows of
    // 0 columns still get a block: it writes post_map(identity).
    const std::size_t packs = (x.cols() + pack<T>::width - 1) / pack<T>::width;
    unsigned threads = detail::reduce_threads;
    while (threads > 32 && threads / 2 >= packs) threads /= 2;
    detail::reduce_rows_kernel<T, spec_type>
        <<<static_cast<unsigned>(x.rows()), threads, 0, stream>>>(x, out.data(), spec);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace lesson06
