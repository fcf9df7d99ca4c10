#pragma once
// Lesson 06 contract, part 1: elementwise kernels, CuPy's ElementwiseKernel in
// C++. Implemented in exercises/06_kernels/elementwise_ops.cu, each with the
// generic launcher you write in exercises/06_kernels/elementwise.cuh.
//
// Every function has a float and a double version: one launcher, any element
// type, as CuPy's type placeholder T does for one kernel source.
//
// Common rules:
//   - Each call launches on `stream` and returns without waiting for the GPU.
//   - Spans whose sizes do not fit together throw std::invalid_argument,
//     before anything is launched.
//   - Empty outputs launch nothing (a grid of 0 blocks is an invalid launch).
//   - A launch the GPU refuses (2048 threads per block, say) throws
//     course::cuda_error.
//   - Inputs are read-only; only the output is written, and nothing past its end.
//   - Views may start anywhere in an allocation: a view that is not 16-byte
//     aligned must still give the right answer (just not through 16-byte loads).
#include <cuda_runtime_api.h>

#include "course/device_span.hpp"
#include "course/device_span_2d.hpp"

namespace lesson06 {

// The seed's exercise 1:
//
//     cp.ElementwiseKernel('float32 x1, float32 x2, float32 B', 'float32 y',
//                          'y = x1 * x2 + B', 'multiply_add')
//
// y[i] = x1[i] * x2[i] + b for every i < y.size(); x1, x2 and y have the same
// size. `threads_per_block` threads in each block.
void multiply_add(course::device_span<const float> x1, course::device_span<const float> x2, float b,
                  course::device_span<float> y, int threads_per_block = 256,
                  cudaStream_t stream = nullptr);
void multiply_add(course::device_span<const double> x1, course::device_span<const double> x2,
                  double b, course::device_span<double> y, int threads_per_block = 256,
                  cudaStream_t stream = nullptr);

// Broadcasting, CuPy's squared_diff example with x of shape (rows, cols) and
// y of shape (cols,):
//
//     out(r, c) = (x(r, c) - y[c])^2
//
// y is one row, repeated for every row of x, as NumPy broadcasts a (cols,)
// array against a (rows, cols) one. x and out are dense (pitch == cols) and
// have the same shape; y.size() == x.cols().
void squared_difference(course::device_span_2d<const float> x, course::device_span<const float> y,
                        course::device_span_2d<float> out, cudaStream_t stream = nullptr);
void squared_difference(course::device_span_2d<const double> x,
                        course::device_span<const double> y, course::device_span_2d<double> out,
                        cudaStream_t stream = nullptr);

// One input: out[i] = x[i] limited to [lo, hi], that is min(max(x[i], lo), hi).
// lo <= hi; x and out have the same size.
void clamp(course::device_span<const float> x, float lo, float hi, course::device_span<float> out,
           cudaStream_t stream = nullptr);
void clamp(course::device_span<const double> x, double lo, double hi,
           course::device_span<double> out, cudaStream_t stream = nullptr);

// Three inputs, linear interpolation: out[i] = a[i] + t[i] * (b[i] - a[i]).
// a, b, t and out have the same size.
void lerp(course::device_span<const float> a, course::device_span<const float> b,
          course::device_span<const float> t, course::device_span<float> out,
          cudaStream_t stream = nullptr);
void lerp(course::device_span<const double> a, course::device_span<const double> b,
          course::device_span<const double> t, course::device_span<double> out,
          cudaStream_t stream = nullptr);

}  // namespace lesson06
