// Going further: sum and L2 norm in one pass (see going_further.hpp).
#include "going_further.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "course/error.hpp"
#include "device_helpers.cuh"

namespace lesson06::bench {

namespace {

// 16-byte loads each thread issues before it adds any of them. With every
// thread of the GPU resident that is far more bytes in flight than the
// memory needs: 8 did no better than 4 on an H200.
constexpr int packs_in_flight = 4;

struct identity_op {
    __device__ float operator()(float v) const { return v; }
};
struct square_op {
    __device__ float operator()(float v) const { return v * v; }
};
struct sqrt_op {
    __device__ float operator()(float v) const { return sqrtf(v); }
};

__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

// The block's total, in thread 0: each warp adds its 32 values with shuffles,
// lane 0 of each puts its warp's sum in shared memory, and the first warp
// adds those. Called by every thread of the block.
__device__ float block_sum(float value) {
    __shared__ float warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_sum(value);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();  // every warp's sum is written before the first warp reads them
    if (warp == 0) value = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f);
    return value;
}

// __ldg reads through the read-only (texture) path; __ldcs marks the line to
// be evicted first, since each byte is read once.
template <bool Streaming>
__device__ __forceinline__ float4 load(const float4* p) {
    if constexpr (Streaming) return __ldcs(p);
    else return __ldg(p);
}

template <class Map>
__device__ __forceinline__ void accumulate(float4& acc, float4 v, const Map& map) {
    acc.x += map(v.x);
    acc.y += map(v.y);
    acc.z += map(v.z);
    acc.w += map(v.w);
}

// out[0] = post(sum of map(x[i])), one launch. 32-bit indices: the host
// keeps n below 2^32, so packs (n / 4) plus one step of the loop never wraps.
template <unsigned Threads, bool Streaming, class Map, class Post>
__global__ void __launch_bounds__(Threads)
    one_pass_kernel(const float* x, unsigned n, float* partials, unsigned* counter, float* out, Map map, Post post) {
    // x is read as float4 from its first 16-byte boundary on; the head before
    // it and the tail after the last whole pack (fewer than 4 elements each)
    // are read one by one.
    const unsigned head = min(n, static_cast<unsigned>(elements_to_alignment(x)));
    const unsigned packs = (n - head) / 4;
    const auto* body = reinterpret_cast<const float4*>(x + head);

    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned stride = gridDim.x * blockDim.x;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    unsigned p = first;
    // All the loads, then their additions: a warp's loads for one u are 32
    // neighbouring packs, 512 contiguous bytes.
    for (; p + (packs_in_flight - 1) * stride < packs; p += packs_in_flight * stride) {
        float4 v[packs_in_flight];
#pragma unroll
        for (int u = 0; u < packs_in_flight; ++u) v[u] = load<Streaming>(body + p + u * stride);
#pragma unroll
        for (int u = 0; u < packs_in_flight; ++u) accumulate(acc, v[u], map);
    }
    for (; p < packs; p += stride) accumulate(acc, load<Streaming>(body + p), map);
    float total = (acc.x + acc.y) + (acc.z + acc.w);
    if (first < head) total += map(x[first]);
    const unsigned tail = head + packs * 4;
    if (first < n - tail) total += map(x[tail + first]);
    total = block_sum(total);

    // The last block to finish adds up the partials. The fence makes this
    // block's partial visible to every other block before the counter says
    // it is there.
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = total;
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    // Also keeps the second block_sum below from reusing warp_sums before
    // the first warp has read it.
    __syncthreads();
    if (!last) return;
    __threadfence();  // and this block sees every other block's partial
    float value = 0.0f;
    // __ldcg reads from L2, where the other blocks' partials are, never from
    // a stale line in this SM's L1.
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) value += __ldcg(partials + i);
    value = block_sum(value);
    if (threadIdx.x == 0) {
        out[0] = post(value);
        *counter = 0;  // ready for the next call on this stream
    }
}

// Calls f with the kernel for (threads, streaming).
template <class Map, class Post, class F>
void with_kernel(unsigned threads, bool streaming, F&& f) {
    if (threads == 256)
        streaming ? f(&one_pass_kernel<256, true, Map, Post>) : f(&one_pass_kernel<256, false, Map, Post>);
    else if (threads == 512)
        streaming ? f(&one_pass_kernel<512, true, Map, Post>) : f(&one_pass_kernel<512, false, Map, Post>);
    else
        throw std::invalid_argument("one_pass_reduction: threads must be 256 or 512");
}

template <class Map, class Post>
unsigned resident(unsigned threads, bool streaming) {
    unsigned blocks = 0;
    with_kernel<Map, Post>(threads, streaming, [&](auto kernel) { blocks = resident_blocks(kernel, threads); });
    return blocks;
}

}  // namespace

one_pass_reduction::one_pass_reduction(unsigned threads, bool streaming) : threads_(threads), streaming_(streaming) {
    // One wave: more blocks would only add partials (two waves measured
    // slower on an H200). Both kernels get the grid of the one that fits
    // fewer blocks: they differ only in the map, so in practice it is the
    // same number.
    blocks_ = std::min(resident<identity_op, identity_op>(threads, streaming),
                       resident<square_op, sqrt_op>(threads, streaming));
    partials_ = course::device_array<float>(blocks_);
    counter_ = course::device_array<unsigned>(1);  // zeroed by the first call, on its stream
}

namespace {
template <class Map, class Post>
void launch(unsigned threads, bool streaming, unsigned blocks, course::device_span<const float> x,
            float* partials, unsigned* counter, float* out, cudaStream_t stream) {
    if (x.size() >= (std::size_t{1} << 32))
        throw std::invalid_argument("one_pass_reduction: x must have fewer than 2^32 elements");
    with_kernel<Map, Post>(threads, streaming, [&](auto kernel) {
        kernel<<<blocks, threads, 0, stream>>>(x.data(), static_cast<unsigned>(x.size()), partials, counter, out,
                                               Map{}, Post{});
    });
    CUDA_CHECK(cudaGetLastError());
}
}  // namespace

// The counter starts at 0 before the first kernel, then each kernel's last
// block resets it. The zero goes on the first call's stream: a cudaMemset on
// the legacy default stream is not ordered with a non-blocking stream, and
// the kernel could count from whatever the memory held.
void one_pass_reduction::zero_counter_once(cudaStream_t stream) {
    if (counter_zeroed_) return;
    CUDA_CHECK(cudaMemsetAsync(counter_.data(), 0, sizeof(unsigned), stream));
    counter_zeroed_ = true;
}

void one_pass_reduction::sum(course::device_span<const float> x, float* out, cudaStream_t stream) {
    zero_counter_once(stream);
    launch<identity_op, identity_op>(threads_, streaming_, blocks_, x, partials_.data(), counter_.data(),
                                     out, stream);
}

void one_pass_reduction::l2_norm(course::device_span<const float> x, float* out, cudaStream_t stream) {
    zero_counter_once(stream);
    launch<square_op, sqrt_op>(threads_, streaming_, blocks_, x, partials_.data(), counter_.data(), out,
                               stream);
}

}  // namespace lesson06::bench
