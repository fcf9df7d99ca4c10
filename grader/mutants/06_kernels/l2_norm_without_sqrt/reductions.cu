// Known-wrong version (grader/mutants): the L2 norm has no post-map, so it is
// the sum of squares, without the square root.
// Lesson 06, part 2: reductions through the generic reduction, reference
// solution. Each one is a choice of identity, map, reduce and post-map.
#include <cmath>
#include <limits>

#include "reduction.cuh"
#include "reductions.cuh"

namespace lesson06 {

namespace {

struct identity_op {
    template <class T>
    __device__ T operator()(T v) const { return v; }
};
struct square_op {
    template <class T>
    __device__ T operator()(T v) const { return v * v; }
};
struct plus_op {
    template <class T>
    __device__ T operator()(T a, T b) const { return a + b; }
};
struct greater_op {  // the larger of two values
    template <class T>
    __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
struct sqrt_op {
    template <class T>
    __device__ T operator()(T v) const { return sqrt(v); }
};

// ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'sum')
template <class T>
reduction<T, identity_op, plus_op, identity_op> sum_spec() {
    return {T(0), {}, {}, {}};
}
// The identity of max is -infinity, not 0: max(0, x) is 0 for any negative x,
// so a 0 would be the "largest element" of an array of negative numbers.
template <class T>
reduction<T, identity_op, greater_op, identity_op> max_spec() {
    return {-std::numeric_limits<T>::infinity(), {}, {}, {}};
}
// ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm'):
// the square root is the post-map, taken once of the whole sum. Taken of each
// block's partial sum it would give the sum of square roots, a different number.
template <class T>
reduction<T, square_op, plus_op, identity_op> l2_spec() {  // MUTANT: no post-map
    return {T(0), {}, {}, {}};
}

}  // namespace

void sum(course::device_span<const float> x, course::device_span<float> out, cudaStream_t stream) {
    reduce(x, out, sum_spec<float>(), stream);
}
void sum(course::device_span<const double> x, course::device_span<double> out, cudaStream_t stream) {
    reduce(x, out, sum_spec<double>(), stream);
}

void max_value(course::device_span<const float> x, course::device_span<float> out,
               cudaStream_t stream) {
    reduce(x, out, max_spec<float>(), stream);
}
void max_value(course::device_span<const double> x, course::device_span<double> out,
               cudaStream_t stream) {
    reduce(x, out, max_spec<double>(), stream);
}

void l2_norm(course::device_span<const float> x, course::device_span<float> out,
             cudaStream_t stream) {
    reduce(x, out, l2_spec<float>(), stream);
}
void l2_norm(course::device_span<const double> x, course::device_span<double> out,
             cudaStream_t stream) {
    reduce(x, out, l2_spec<double>(), stream);
}

void row_l2_norm(course::device_span_2d<const float> x, course::device_span<float> out,
                 cudaStream_t stream) {
    reduce_rows(x, out, l2_spec<float>(), stream);
}
void row_l2_norm(course::device_span_2d<const double> x, course::device_span<double> out,
                 cudaStream_t stream) {
    reduce_rows(x, out, l2_spec<double>(), stream);
}

}  // namespace lesson06
