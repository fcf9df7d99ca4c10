#pragma once
// The lesson06 benchmark's yardsticks, compiled by nvcc in baselines.cu: CUB's
// sum (the library answer to a reduction) and a plain one-element-per-thread
// kernel for y = x1 * x2 + B (what a first RawKernel looks like).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "course/device_array.hpp"

namespace lesson06::bench {

// cub::DeviceReduce::Sum over n floats. The temporary storage CUB asks for is
// allocated once, here, so that the timed calls measure the reduction alone.
class cub_sum {
public:
    explicit cub_sum(std::size_t n);
    void operator()(const float* x, float* out, cudaStream_t stream);

private:
    std::size_t n_;
    std::size_t temp_bytes_ = 0;
    course::device_array<unsigned char> temp_;
};

// y[i] = x1[i] * x2[i] + b, one element per thread, no vector loads.
void plain_multiply_add(const float* x1, const float* x2, float b, float* y, std::size_t n,
                        unsigned threads, cudaStream_t stream);

}  // namespace lesson06::bench
