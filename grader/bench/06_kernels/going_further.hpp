#pragma once
// Going further: sum and L2 norm in one pass, as fast as CUB's sum
// (grader/bench/06_kernels/going_further.cu).
//
// The lesson's reduction is two kernels and a little scratch memory taken from
// a pool on every call. Here the whole reduction is one kernel, launched with
// everything prepared beforehand:
//   - a grid of exactly the blocks that fit on the GPU at once, each thread
//     looping over x with 16-byte loads, four of them issued before any is
//     added, and four float accumulators (one per lane of a pack) so that
//     the additions do not wait for each other;
//   - the block's threads combine their values with warp shuffles, then
//     through shared memory;
//   - the "last block" pattern instead of a second kernel: every block writes
//     its partial result and counts itself with atomicAdd; the block that
//     counts last adds the partials, in index order, applies the post-map and
//     resets the counter for the next call.
// The partials and the counter belong to the object, allocated once: no
// allocation in the timed call. The order of the additions depends only on n
// and the grid, so a given input gives the same bits every time.
#include <cuda_runtime_api.h>

#include "course/device_array.hpp"
#include "course/device_span.hpp"

namespace lesson06::bench {

class one_pass_reduction {
public:
    // For the current device. `threads` per block is 256 or 512 (throws
    // std::invalid_argument otherwise). `streaming` reads x with the
    // evict-first hint (__ldcs) instead of the read-only path (__ldg).
    explicit one_pass_reduction(unsigned threads = 512, bool streaming = false);

    // out[0] = x[0] + ... + x[n-1] (0 for an empty x), queued on `stream`.
    void sum(course::device_span<const float> x, float* out, cudaStream_t stream);
    // out[0] = sqrt(x[0]^2 + ... + x[n-1]^2), queued on `stream`.
    void l2_norm(course::device_span<const float> x, float* out, cudaStream_t stream);
    // x may start anywhere (the elements before its first 16-byte boundary
    // are read one by one) and must have fewer than 2^32 elements.
    //
    // The counter is the object's: calls on one stream run one after the
    // other and share it safely; calls on two streams at once need two objects.
    // The first call zeroes it on its own stream, ahead of its kernel.

private:
    void zero_counter_once(cudaStream_t stream);

    unsigned threads_;
    bool streaming_;
    unsigned blocks_ = 0;  // the grid: as many blocks as fit on the GPU at once
    course::device_array<float> partials_;  // one per block
    course::device_array<unsigned> counter_;  // blocks finished in this call; 0 between calls
    bool counter_zeroed_ = false;             // by the first call's cudaMemsetAsync
};

}  // namespace lesson06::bench
