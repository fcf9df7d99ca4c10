// The lesson06 benchmark's yardsticks (see baselines.hpp).
#include "baselines.hpp"

#include <cub/device/device_reduce.cuh>

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson06::bench {

cub_sum::cub_sum(std::size_t n) : n_(n) {
    // The first call, with no storage, only says how much storage it needs.
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes_, static_cast<const float*>(nullptr),
                                      static_cast<float*>(nullptr), n_));
    temp_ = course::device_array<unsigned char>(temp_bytes_);
}

void cub_sum::operator()(const float* x, float* out, cudaStream_t stream) {
    std::size_t bytes = temp_bytes_;
    CUDA_CHECK(cub::DeviceReduce::Sum(temp_.data(), bytes, x, out, n_, stream));
}

namespace {
__global__ void plain_multiply_add_kernel(const float* x1, const float* x2, float b, float* y,
                                          std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = x1[i] * x2[i] + b;
}
}  // namespace

void plain_multiply_add(const float* x1, const float* x2, float b, float* y, std::size_t n,
                        unsigned threads, cudaStream_t stream) {
    if (n == 0) return;
    plain_multiply_add_kernel<<<course::blocks_for(n, threads), threads, 0, stream>>>(x1, x2, b, y, n);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace lesson06::bench
