#include "course/error.hpp"
#include "course/gpu_clock.cuh"
#include "course/launch.hpp"
#include "test_kernels.hpp"

namespace lesson05_tests {

namespace {

__global__ void spin_kernel(unsigned long long ns) { course::spin_for_nanoseconds(ns); }

__global__ void slow_fill_kernel(course::device_span<int> data, int value, unsigned long long ns) {
    // One thread waits, then the whole (single) block writes: nothing is
    // written until the delay is over.
    if (threadIdx.x == 0) course::spin_for_nanoseconds(ns);
    __syncthreads();
    for (std::size_t i = threadIdx.x; i < data.size(); i += blockDim.x) data[i] = value;
}

__global__ void copy_kernel(course::device_span<const int> from, course::device_span<int> to) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < to.size()) to[i] = from[i];
}

unsigned long long nanoseconds(std::chrono::microseconds d) {
    return static_cast<unsigned long long>(d.count()) * 1000ull;
}

}  // namespace

void launch_spin(cudaStream_t stream, std::chrono::microseconds duration) {
    spin_kernel<<<1, 1, 0, stream>>>(nanoseconds(duration));
    CUDA_CHECK(cudaGetLastError());
}

void launch_slow_fill(cudaStream_t stream, course::device_span<int> data, int value,
                      std::chrono::microseconds delay) {
    slow_fill_kernel<<<1, 1024, 0, stream>>>(data, value, nanoseconds(delay));
    CUDA_CHECK(cudaGetLastError());
}

void launch_copy(cudaStream_t stream, course::device_span<const int> from, course::device_span<int> to) {
    if (to.empty()) return;
    copy_kernel<<<course::blocks_for(to.size(), 256), 256, 0, stream>>>(from, to);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace lesson05_tests
