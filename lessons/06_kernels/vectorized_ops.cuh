#pragma once
// Lesson 06 contract, part 5: kernels from a lambda, what Numba's
// @vectorize(target='cuda') and cupy.fuse do. Implemented in
// exercises/06_kernels/vectorized_ops.cu, each as a __device__ lambda given to
// lesson06::vectorize, which you write in exercises/06_kernels/vectorize.cuh.
//
// Common rules (those of part 1, plus NumPy's broadcasting):
//   - Each call launches ONE kernel on `stream` and returns without waiting;
//     an empty output launches nothing.
//   - A 2D operand may have the output's shape (rows, cols), or 1 along
//     either axis or both: (1, cols) is one row repeated down the rows,
//     (rows, 1) one column repeated across the columns, (1, 1) one value for
//     every element. Operands may be pitched (pitch > cols); the output is
//     dense (pitch == cols). Any other shape throws std::invalid_argument
//     before anything is launched, as NumPy raises "operands could not be
//     broadcast together".
//   - Inputs are read-only; only the output is written, and nothing past its end.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "course/device_span.hpp"
#include "course/device_span_2d.hpp"

namespace lesson06 {

// out(r, c) = x(r, c) * scale(r, c) + shift(r, c), each operand broadcast to
// out's shape. One lambda serves all three element types; for int the result
// is exact (as long as it fits in an int: signed overflow is undefined).
void affine(course::device_span_2d<const float> x, course::device_span_2d<const float> scale,
            course::device_span_2d<const float> shift, course::device_span_2d<float> out,
            cudaStream_t stream = nullptr);
void affine(course::device_span_2d<const double> x, course::device_span_2d<const double> scale,
            course::device_span_2d<const double> shift, course::device_span_2d<double> out,
            cudaStream_t stream = nullptr);
void affine(course::device_span_2d<const std::int32_t> x,
            course::device_span_2d<const std::int32_t> scale,
            course::device_span_2d<const std::int32_t> shift,
            course::device_span_2d<std::int32_t> out, cudaStream_t stream = nullptr);

// out[i] = c0 + c1 x[i] + c2 x[i]^2 + c3 x[i]^3, by Horner's rule
// (c0 + x (c1 + x (c2 + x c3))). The coefficients are scalars, broadcast to
// every element and converted to the array's type first, as NumPy (NEP 50)
// treats a Python float next to a float32 array: the float version computes
// in float, the double version in double. x and out have the same size.
void cubic(course::device_span<const float> x, double c0, double c1, double c2, double c3,
           course::device_span<float> out, cudaStream_t stream = nullptr);
void cubic(course::device_span<const double> x, double c0, double c1, double c2, double c3,
           course::device_span<double> out, cudaStream_t stream = nullptr);

// The seed's exercise 1 once more, y[i] = x1[i] * x2[i] + b, this time from a
// lambda: the same contract as multiply_add in elementwise_ops.cuh (256
// threads a block), to compare the two in the benchmark.
void multiply_add_vectorized(course::device_span<const float> x1, course::device_span<const float> x2,
                             float b, course::device_span<float> y, cudaStream_t stream = nullptr);

}  // namespace lesson06
