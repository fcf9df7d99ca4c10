#pragma once
// Kernels for the lesson04 benchmark (bench_kernels.cu): one that keeps the
// GPU busy for a while, and one that writes a temporary buffer.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>

namespace lesson04_bench {

// Queues a one-thread kernel that runs for `duration` of GPU time.
void launch_spin(cudaStream_t stream, std::chrono::microseconds duration);

// Queues a kernel that writes all `bytes` of `buffer` (a multiple of 4).
void launch_write(cudaStream_t stream, void* buffer, std::size_t bytes);

}  // namespace lesson04_bench
