#include "course/error.hpp"
#include "course/gpu_clock.cuh"
#include "course/launch.hpp"
#include "test_kernels.hpp"

namespace lesson04_tests {

namespace {

__global__ void slow_fill_kernel(course::device_span<int> data, int value, unsigned long long ns) {
    // One thread waits, then the whole (single) block writes: nothing is
    // written until the delay is over.
    if (threadIdx.x == 0) course::spin_for_nanoseconds(ns);
    __syncthreads();
    for (std::size_t i = threadIdx.x; i < data.size(); i += blockDim.x) data[i] = value;
}

__global__ void fill_kernel(course::device_span<int> data, int value) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < data.size()) data[i] = value;
}

__global__ void add_kernel(course::device_span<const int> from, course::device_span<int> to, int add) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < to.size()) to[i] = from[i] + add;
}

}  // namespace

void launch_slow_fill(cudaStream_t stream, course::device_span<int> data, int value,
                      std::chrono::microseconds delay) {
    const auto ns = static_cast<unsigned long long>(delay.count()) * 1000ull;
    slow_fill_kernel<<<1, 1024, 0, stream>>>(data, value, ns);
    CUDA_CHECK(cudaGetLastError());
}

void launch_fill(cudaStream_t stream, course::device_span<int> data, int value) {
    if (data.empty()) return;
    fill_kernel<<<course::blocks_for(data.size(), 256), 256, 0, stream>>>(data, value);
    CUDA_CHECK(cudaGetLastError());
}

void launch_add(cudaStream_t stream, course::device_span<const int> from, course::device_span<int> to, int add) {
    if (to.empty()) return;
    add_kernel<<<course::blocks_for(to.size(), 256), 256, 0, stream>>>(from, to, add);
    CUDA_CHECK(cudaGetLastError());
}

void warm_up_kernels() {
    slow_fill_kernel<<<1, 32>>>(course::device_span<int>{}, 0, 0);
    CUDA_CHECK(cudaGetLastError());
    fill_kernel<<<1, 32>>>(course::device_span<int>{}, 0);
    CUDA_CHECK(cudaGetLastError());
    add_kernel<<<1, 32>>>(course::device_span<const int>{}, course::device_span<int>{}, 0);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace lesson04_tests
