#pragma once
// How a timed call's answer is held to the reference's: every value within
// `tolerance` times the size that rounding can err by.
//
// That size, the scale, is the same call's answer on the magnitudes of its
// inputs (take_magnitudes in fresh_inputs.hpp): for a sum, sum |x|; for a
// dot product or a matrix product, the sum of |a||b|; for an elementwise
// a*x + y, |a||x| + |y|. Float32 arithmetic in any order errs by a small
// multiple of FLT_EPSILON (about 1.2e-7) of it, whatever the signs cancel;
// an answer that skipped part of the work, or computed from inputs rounded
// to TF32 or FP16 (10-bit mantissas, about 5e-4), errs by far more. The
// tolerances below sit between the two, and common/tests/test_result_check.cpp
// shows, for each timed test's operation, that float32 passes and zeros, a
// constant, half the inputs, TF32 and FP16 fail.
//
// Where a test gives the judge no arrays (lesson05's pipeline, timed from
// the record), there is no scale: a value's own size, at least 1, stands in.
#include <cmath>

#if defined(__CUDACC__)
#define COURSE_CHECK_HD __host__ __device__
#else
#define COURSE_CHECK_HD
#endif

namespace course::testing {

// Elementwise work (vecadd, doublify, SAXPY, multiply_add): each value is
// one or two roundings of its terms.
inline constexpr double elementwise_tolerance = 1e-5;
// A sum or norm of up to 2^28 values in float32, each thread adding up to
// a few thousand in order and the partials combined in a tree: about 3e-6
// of the sum of magnitudes at 2048 a thread. Half the data scaled up errs by
// about 1e-3 of it, a sum of TF32 or FP16 inputs by at least 7e-5 (every
// input rounds the same way: fresh_inputs.hpp).
inline constexpr double reduction_tolerance = 2e-5;
// A matrix product with K = 2048, accumulated in float32 along K: measured
// at most 2e-6 of the sum of |a||b| (one accumulator a thread, the worst
// order); with TF32 or FP16 inputs the typical element errs by 3e-5 of it.
inline constexpr double matmul_tolerance = 1e-5;

// Whether `got` is within `tolerance` of `expected`, measured against
// `scale` (the answer on the inputs' magnitudes): a NaN or an infinity never is.
COURSE_CHECK_HD inline bool within_tolerance(double got, double expected, double scale, double tolerance) {
    return std::isfinite(got) && std::fabs(got - expected) <= tolerance * scale;
}

// The scale where the test gives none: the value's own size, at least 1.
COURSE_CHECK_HD inline double scale_without_magnitudes(double expected) { return std::fmax(1.0, std::fabs(expected)); }

}  // namespace course::testing
