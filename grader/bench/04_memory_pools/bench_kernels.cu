#include <algorithm>

#include "bench_kernels.hpp"
#include "course/device_span.hpp"
#include "course/error.hpp"
#include "course/gpu_clock.cuh"
#include "course/launch.hpp"

namespace lesson04_bench {

namespace {

__global__ void spin_kernel(unsigned long long ns) { course::spin_for_nanoseconds(ns); }

__global__ void write_kernel(course::device_span<unsigned> data) {
    // Grid-stride: a fixed grid covers any size.
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < data.size();
         i += stride)
        data[i] = static_cast<unsigned>(i);
}

}  // namespace

void launch_spin(cudaStream_t stream, std::chrono::microseconds duration) {
    spin_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(duration.count()) * 1000ull);
    CUDA_CHECK(cudaGetLastError());
}

void launch_write(cudaStream_t stream, void* buffer, std::size_t bytes) {
    const course::device_span<unsigned> data{static_cast<unsigned*>(buffer), bytes / sizeof(unsigned)};
    if (data.empty()) return;
    const unsigned blocks = std::min(course::blocks_for(data.size(), 256), 4096u);
    write_kernel<<<blocks, 256, 0, stream>>>(data);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace lesson04_bench
