#pragma once
// Lesson 06: the generic reduction. Read lessons/06_kernels/README.md first.
//
//     lesson06::reduce(x, out, spec, stream);       // out[0] = post_map(reduce over i of map(x[i]))
//     lesson06::reduce_rows(x, out, spec, stream);  // out[r] = the same over row r
//
// `spec` is a reduction<T, Map, Reduce, PostMap>: the identity and three
// functors, the four arguments of CuPy's ReductionKernel.
//
// The whole-array reduction is two kernels, both on `stream`:
//   1. reduce_blocks: a grid that just fills the GPU; every thread folds
//      map(x[i]) over its share of x; each block combines its threads'
//      values (warp shuffles, then shared memory) and writes one partial.
//   2. finish: one block combines the partials and applies the post-map,
//      once, to the total.
// No atomics: the same input gives the same bits every time.
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

// Threads per block of the kernels: 8 warps, every warp full.
inline constexpr unsigned reduce_threads = 256;

// The 32 lanes of a warp combine their values; lane 0 ends with the result.
template <class T, class Reduce>
__device__ __forceinline__ T warp_reduce(T value, const Reduce& reduce) {
    // TODO(lesson06): five steps, offset 16, 8, 4, 2, 1: combine your value
    // with the one `offset` lanes above you,
    //     value = reduce(value, __shfl_down_sync(0xffffffffu, value, offset));
    return value;
}

// The block's threads combine their values; thread 0 gets the result. Call it
// once per kernel, from every thread of the block.
template <class T, class Reduce>
__device__ T block_reduce(T value, const Reduce& reduce, T identity) {
    __shared__ T warp_results[32];  // one per warp; 1024 threads make at most 32 warps
    // TODO(lesson06): 1. each warp reduces itself (warp_reduce);
    //                 2. lane 0 of each warp stores the warp's result in
    //                    warp_results[warp];
    //                 3. wait until every warp has stored its result;
    //                 4. warp 0 reads the blockDim.x / 32 results (identity for
    //                    the lanes beyond them) and reduces them again.
    (void)warp_results;
    (void)reduce;
    (void)identity;
    return value;
}

// This thread's fold of map(x[i]) over the elements first, first + stride,
// first + 2 * stride, ... of x[0, n).
template <class T, class Spec>
__device__ T thread_fold(const T* x, std::size_t n, const Spec& spec, std::size_t first,
                         std::size_t stride) {
    // TODO(lesson06): start from spec.identity and fold in spec.map(x[i]) with
    // spec.reduce. A loop over single elements is right; for speed, read
    // 16-byte packs (load_pack) from x's first 16-byte boundary on
    // (elements_to_alignment(x) tells how far it is), keep several
    // accumulators, and finish the elements before that boundary and after the
    // last whole pack one by one.
    (void)x, (void)n, (void)first, (void)stride;
    return spec.identity;
}

// Pass 1: each block writes the reduction (not yet post-mapped) of its share of x.
template <class T, class Spec>
__global__ void reduce_blocks_kernel(course::device_span<const T> x, T* partials, Spec spec) {
    // TODO(lesson06): thread_fold over the whole grid's share (first: the
    // global thread index; stride: the threads in the grid), block_reduce,
    // and thread 0 stores partials[blockIdx.x].
}

// Pass 2, one block: combines `count` partials (already mapped: reduce only)
// and stores post_map of the total in out[0].
template <class T, class Spec>
__global__ void finish_kernel(const T* partials, unsigned count, T* out, Spec spec) {
    // TODO(lesson06)
}

// Along axis 1: block r reduces row r and stores post_map of it in out[r].
template <class T, class Spec>
__global__ void reduce_rows_kernel(course::device_span_2d<const T> x, T* out, Spec spec) {
    // TODO(lesson06): like pass 1 and 2 in one: the block's threads fold row
    // blockIdx.x (x.row(r) is a span of it), block_reduce, thread 0 stores
    // post_map of the result.
}

}  // namespace detail

// out[0] = spec.post_map(reduction of spec.map(x[i]) over every i); queued on
// `stream`, nothing waits for it.
template <class T, class Map, class Reduce, class PostMap>
void reduce(course::device_span<const T> x, course::device_span<T> out,
            const reduction<T, Map, Reduce, PostMap>& spec, cudaStream_t stream) {
    using spec_type = reduction<T, Map, Reduce, PostMap>;
    // TODO(lesson06): 1. out must have room for the result (std::invalid_argument);
    //                 2. the grid of pass 1: grid_for(&detail::reduce_blocks_kernel<T, spec_type>,
    //                    work, detail::reduce_threads); no blocks for an empty x;
    //                 3. partials: stream_scratch<T> partials(blocks, stream);
    //                 4. launch pass 1 (if any blocks), then pass 2 with one
    //                    block (always: an empty x gives post_map(identity)),
    //                    checking each launch.
    // Then delete the line below.
    (void)sizeof(spec_type);
    course::todo("lesson06::reduce in exercises/06_kernels/reduction.cuh");
}

// out[r] = spec.post_map(reduction of spec.map(x(r, c)) over every c), for
// every row r; queued on `stream`.
template <class T, class Map, class Reduce, class PostMap>
void reduce_rows(course::device_span_2d<const T> x, course::device_span<T> out,
                 const reduction<T, Map, Reduce, PostMap>& spec, cudaStream_t stream) {
    using spec_type = reduction<T, Map, Reduce, PostMap>;
    // TODO(lesson06): out needs x.rows() elements (std::invalid_argument);
    // nothing to do without rows; one block per row.
    (void)sizeof(spec_type);
    course::todo("lesson06::reduce_rows in exercises/06_kernels/reduction.cuh");
}

}  // namespace lesson06
