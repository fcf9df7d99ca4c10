// Lesson 06, part 5: kernels from a lambda, reference solution.
#include <cstdint>

#include "vectorize.cuh"
#include "vectorized_ops.cuh"

namespace lesson06 {

namespace {

// One lambda for every element type: its `auto` parameters become float,
// double or int32 when the kernel is instantiated for the arrays it is
// called with. Every argument broadcasts, so x, scale and shift may each be
// a full matrix, a row, a column or one value.
template <class T>
void affine_impl(course::device_span_2d<const T> x, course::device_span_2d<const T> scale,
                 course::device_span_2d<const T> shift, course::device_span_2d<T> out,
                 cudaStream_t stream) {
    const auto affine =
        vectorize([] __device__(auto v, auto s, auto b) { return v * s + b; }, {256, stream});
    affine(out, x, scale, shift);
}

// The coefficients are arguments, not captures: vectorize broadcasts them
// as scalars (converted to T), as Numba's ufuncs take a scalar anywhere an
// array may go.
template <class T>
void cubic_impl(course::device_span<const T> x, double c0, double c1, double c2, double c3,
                course::device_span<T> out, cudaStream_t stream) {
    const auto horner = vectorize(
        [] __device__(auto v, auto a0, auto a1, auto a2, auto a3) {
            return a0 + v * (a1 + v * (a2 + v * a3));
        },
        {256, stream});
    horner(out, x, c0, c1, c2, c3);
}

}  // namespace

void affine(course::device_span_2d<const float> x, course::device_span_2d<const float> scale,
            course::device_span_2d<const float> shift, course::device_span_2d<float> out,
            cudaStream_t stream) {
    affine_impl(x, scale, shift, out, stream);
}
void affine(course::device_span_2d<const double> x, course::device_span_2d<const double> scale,
            course::device_span_2d<const double> shift, course::device_span_2d<double> out,
            cudaStream_t stream) {
    affine_impl(x, scale, shift, out, stream);
}
void affine(course::device_span_2d<const std::int32_t> x,
            course::device_span_2d<const std::int32_t> scale,
            course::device_span_2d<const std::int32_t> shift,
            course::device_span_2d<std::int32_t> out, cudaStream_t stream) {
    affine_impl(x, scale, shift, out, stream);
}

void cubic(course::device_span<const float> x, double c0, double c1, double c2, double c3,
           course::device_span<float> out, cudaStream_t stream) {
    cubic_impl(x, c0, c1, c2, c3, out, stream);
}
void cubic(course::device_span<const double> x, double c0, double c1, double c2, double c3,
           course::device_span<double> out, cudaStream_t stream) {
    cubic_impl(x, c0, c1, c2, c3, out, stream);
}

void multiply_add_vectorized(course::device_span<const float> x1, course::device_span<const float> x2,
                             float b, course::device_span<float> y, cudaStream_t stream) {
    const auto multiply_add =
        vectorize([] __device__(auto u, auto v, auto offset) { return u * v + offset; }, {256, stream});
    multiply_add(y, x1, x2, b);
}

}  // namespace lesson06
