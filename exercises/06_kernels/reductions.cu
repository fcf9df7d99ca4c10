// Lesson 06, part 2: reductions through the generic reduction. Each one is a
// choice of identity, map, reduce and post-map.
// Read lessons/06_kernels/README.md first. Grade your work with:
//     grader run lesson06
#include <cmath>
#include <limits>

#include "reduction.cuh"
#include "reductions.cuh"

namespace lesson06 {

namespace {

// The pieces, as functors. Each operator() is a template, so one functor
// serves float and double.
struct identity_op {
    template <class T>
    __device__ T operator()(T v) const { return v; }
};
struct plus_op {
    template <class T>
    __device__ T operator()(T a, T b) const { return a + b; }
};
// TODO(lesson06): the functors the max and the L2 norm need (the larger of
// two values; a square; a square root).

// ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'sum') (given).
template <class T>
reduction<T, identity_op, plus_op, identity_op> sum_spec() {
    return {T(0), {}, {}, {}};
}

// TODO(lesson06): max_spec<T>() and l2_spec<T>(). Think about each identity:
// what is the largest element of an empty array, and what must
// reduce(identity, a) give?

}  // namespace

void sum(course::device_span<const float> x, course::device_span<float> out, cudaStream_t stream) {
    // TODO(lesson06): reduce(x, out, sum_spec<float>(), stream); then the
    // double version below, and the others. Delete each course::todo line.
    course::todo("lesson06::sum in exercises/06_kernels/reductions.cu");
}
void sum(course::device_span<const double> x, course::device_span<double> out, cudaStream_t stream) {
    course::todo("lesson06::sum in exercises/06_kernels/reductions.cu");
}

void max_value(course::device_span<const float> x, course::device_span<float> out,
               cudaStream_t stream) {
    course::todo("lesson06::max_value in exercises/06_kernels/reductions.cu");
}
void max_value(course::device_span<const double> x, course::device_span<double> out,
               cudaStream_t stream) {
    course::todo("lesson06::max_value in exercises/06_kernels/reductions.cu");
}

void l2_norm(course::device_span<const float> x, course::device_span<float> out,
             cudaStream_t stream) {
    course::todo("lesson06::l2_norm in exercises/06_kernels/reductions.cu");
}
void l2_norm(course::device_span<const double> x, course::device_span<double> out,
             cudaStream_t stream) {
    course::todo("lesson06::l2_norm in exercises/06_kernels/reductions.cu");
}

void row_l2_norm(course::device_span_2d<const float> x, course::device_span<float> out,
                 cudaStream_t stream) {
    course::todo("lesson06::row_l2_norm in exercises/06_kernels/reductions.cu");
}
void row_l2_norm(course::device_span_2d<const double> x, course::device_span<double> out,
                 cudaStream_t stream) {
    course::todo("lesson06::row_l2_norm in exercises/06_kernels/reductions.cu");
}

}  // namespace lesson06
