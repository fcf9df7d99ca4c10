#pragma once
// Lesson 06 contract, part 2: reductions, CuPy's ReductionKernel in C++.
// Implemented in exercises/06_kernels/reductions.cu, each with the generic
// reduction you write in exercises/06_kernels/reduction.cuh.
//
// A reduction is four pieces (CuPy's ReductionKernel arguments):
//
//     identity    the value of an empty reduction      0 for a sum, -inf for a max
//     map         applied to every element once        x -> x * x for the L2 norm
//     reduce      combines two partial results          a + b, or max(a, b)
//     post-map    applied to the final result, once     s -> sqrt(s) for the L2 norm
//
// Common rules:
//   - The result is written to device memory (`out`), on `stream`, and the
//     call returns without waiting: no hidden cudaDeviceSynchronize, no copy
//     to the host. Read it after synchronising, as with any kernel's output.
//   - out.size() must be at least 1 (for the whole-array reductions) or
//     x.rows() (for the row-wise one); otherwise std::invalid_argument.
//   - Empty input is not an error: the result is post-map(identity).
//   - Views may start anywhere in an allocation (16-byte alignment is not
//     guaranteed) and rows may be padded (pitch > cols).
//   - Floating-point sums depend on the order of the additions: the tests
//     compare with a float64 reference within a bound that grows with n.
#include <cuda_runtime_api.h>

#include "course/device_span.hpp"
#include "course/device_span_2d.hpp"

namespace lesson06 {

// out[0] = x[0] + x[1] + ... + x[n-1]; 0 for an empty x.
void sum(course::device_span<const float> x, course::device_span<float> out,
         cudaStream_t stream = nullptr);
void sum(course::device_span<const double> x, course::device_span<double> out,
         cudaStream_t stream = nullptr);

// out[0] = the largest element of x; -infinity for an empty x. (Not called
// `max`: inside namespace lesson06 that name would hide CUDA's max(a, b).)
void max_value(course::device_span<const float> x, course::device_span<float> out,
               cudaStream_t stream = nullptr);
void max_value(course::device_span<const double> x, course::device_span<double> out,
               cudaStream_t stream = nullptr);

// out[0] = sqrt(x[0]^2 + ... + x[n-1]^2), the Euclidean (L2) norm; 0 for an
// empty x. cupy.linalg.norm(x), or the ReductionKernel
//     ('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')
void l2_norm(course::device_span<const float> x, course::device_span<float> out,
             cudaStream_t stream = nullptr);
void l2_norm(course::device_span<const double> x, course::device_span<double> out,
             cudaStream_t stream = nullptr);

// Along axis 1: out[r] = the L2 norm of row r of x, for every r < x.rows()
// (CuPy: the same ReductionKernel called with axis=1). out.size() must be at
// least x.rows(); nothing beyond out[x.rows() - 1] is written. A row of 0
// columns has norm 0.
void row_l2_norm(course::device_span_2d<const float> x, course::device_span<float> out,
                 cudaStream_t stream = nullptr);
void row_l2_norm(course::device_span_2d<const double> x, course::device_span<double> out,
                 cudaStream_t stream = nullptr);

}  // namespace lesson06
