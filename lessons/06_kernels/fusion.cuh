#pragma once
// Lesson 06 contract, part 4: kernel fusion, what cupy.fuse does. Implemented
// in exercises/06_kernels/fusion.cu with the elementwise launcher.
//
// The update (CuPy's fusion example)
//
//     y = exp(a * sin(x) + cos(y))
//
// written as separate array operations runs one kernel per operation, and
// every intermediate result makes a round trip through memory. Fused, one
// kernel reads x and y once and writes y once: 12 bytes an element instead of
// 28 for the three kernels below (44 for CuPy's five unfused operations).
#include <cuda_runtime_api.h>

#include "course/device_span.hpp"

namespace lesson06 {

// y[i] = exp(a * sin(x[i]) + cos(y[i])) for every i < y.size(), in place, in
// ONE kernel launched on `stream`. x and y have the same size
// (std::invalid_argument otherwise); empty y launches nothing.
void fused_update(float a, course::device_span<const float> x, course::device_span<float> y,
                  cudaStream_t stream = nullptr);

// The same update as THREE kernels, one operation each, for comparison:
//     scratch = a * sin(x)         reads x,          writes scratch
//     scratch = scratch + cos(y)   reads scratch, y, writes scratch
//     y = exp(scratch)             reads scratch,    writes y
// scratch holds at least y.size() elements; x and y have the same size.
void unfused_update(float a, course::device_span<const float> x, course::device_span<float> y,
                    course::device_span<float> scratch, cudaStream_t stream = nullptr);

}  // namespace lesson06
