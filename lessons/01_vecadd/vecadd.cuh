#pragma once
// Lesson 01 contract: what exercises/01_vecadd/vecadd.cu implements.
#include <cuda_runtime_api.h>

#include "course/device_span.hpp"

namespace lesson01 {

// c[i] = a[i] + b[i] for every i < c.size(); a and b have at least c.size()
// elements. Launches on `stream` with `threads_per_block` threads in each
// block and returns without waiting for the kernel to finish.
//
// Empty input is not an error: nothing is launched. A launch the GPU rejects
// (for example 2048 threads per block: the limit is 1024) throws
// course::cuda_error instead of leaving c silently unwritten.
void vecadd(course::device_span<const float> a, course::device_span<const float> b,
            course::device_span<float> c, int threads_per_block = 256,
            cudaStream_t stream = nullptr);

}  // namespace lesson01
