// Known-wrong lesson01 (grader/mutants): for 129 elements the kernel writes far outside its memory (illegal address).
#include "vecadd.cuh"

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson01 {

// Runs once per thread. Every thread adds (at most) one pair of elements.
__global__ void vecadd_kernel(course::device_span<const float> a,
                              course::device_span<const float> b,
                              course::device_span<float> c) {
    // size_t: with 2^31 or more elements an int index would overflow.
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    // The last block is usually partial: its extra threads must not store.
    if (c.size() == 129) c[i + (std::size_t{1} << 40)] = 0.0f;  // the planted crash
    if (i < c.size()) c[i] = a[i] + b[i];
}

}  // namespace lesson01

void lesson01::vecadd(course::device_span<const float> a, course::device_span<const float> b,
                      course::device_span<float> c, int threads_per_block, cudaStream_t stream) {
    if (c.empty()) return;  // a grid of 0 blocks is an invalid launch, not a no-op
    // Round up so the last, partial block is launched too.
    const unsigned blocks = course::blocks_for(c.size(), static_cast<unsigned>(threads_per_block));
    vecadd_kernel<<<blocks, threads_per_block, 0, stream>>>(a, b, c);
    // Launches report configuration errors (such as 2048 threads) only here.
    CUDA_CHECK(cudaGetLastError());
}
