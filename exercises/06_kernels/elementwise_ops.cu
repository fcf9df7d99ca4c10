// Lesson 06, part 1: elementwise kernels through the generic launcher.
// Read lessons/06_kernels/README.md first. Grade your work with:
//     grader run lesson06
#include <stdexcept>
#include <string>

#include "elementwise.cuh"
#include "elementwise_ops.cuh"

namespace lesson06 {

namespace {

// Each operation is a small functor: the loop body of a CuPy
// ElementwiseKernel, with its scalar arguments as members. The first one is
// written for you.
template <class T>
struct multiply_add_op {
    T b;
    __device__ T operator()(T x1, T x2) const { return x1 * x2 + b; }
};

// TODO(lesson06): the functors for squared_difference ((x - y)^2) and lerp
// (a + t * (b - a)). clamp can use a __device__ lambda instead:
//     [lo, hi] __device__(T v) { ... }

[[maybe_unused]] void require(bool condition, const std::string& what) {
    if (!condition) throw std::invalid_argument(what);
}

// One template serves float and double: only T differs.
template <class T>
void multiply_add_impl(course::device_span<const T> x1, course::device_span<const T> x2, T b,
                       course::device_span<T> y, int threads, cudaStream_t stream) {
    // TODO(lesson06): check that x1, x2 and y have the same size (require),
    // then launch:
    //     elementwise({static_cast<unsigned>(threads), stream}, multiply_add_op<T>{b}, y,
    //                 input(x1), input(x2));
    // Then delete the line below.
    course::todo("lesson06::multiply_add in exercises/06_kernels/elementwise_ops.cu");
}

template <class T>
void squared_difference_impl(course::device_span_2d<const T> x, course::device_span<const T> y,
                             course::device_span_2d<T> out, cudaStream_t stream) {
    // TODO(lesson06): check the shapes (same shape, y.size() == x.cols(), both
    // dense), view x and out as flat spans of rows * cols elements, and
    // launch with input(flat_x) and broadcast_row(y).
    course::todo("lesson06::squared_difference in exercises/06_kernels/elementwise_ops.cu");
}

template <class T>
void clamp_impl(course::device_span<const T> x, T lo, T hi, course::device_span<T> out,
                cudaStream_t stream) {
    // TODO(lesson06): one input.
    course::todo("lesson06::clamp in exercises/06_kernels/elementwise_ops.cu");
}

template <class T>
void lerp_impl(course::device_span<const T> a, course::device_span<const T> b,
               course::device_span<const T> t, course::device_span<T> out, cudaStream_t stream) {
    // TODO(lesson06): three inputs.
    course::todo("lesson06::lerp in exercises/06_kernels/elementwise_ops.cu");
}

}  // namespace

// The contract's functions (given): each calls its template.
void multiply_add(course::device_span<const float> x1, course::device_span<const float> x2, float b,
                  course::device_span<float> y, int threads_per_block, cudaStream_t stream) {
    multiply_add_impl(x1, x2, b, y, threads_per_block, stream);
}
void multiply_add(course::device_span<const double> x1, course::device_span<const double> x2,
                  double b, course::device_span<double> y, int threads_per_block,
                  cudaStream_t stream) {
    multiply_add_impl(x1, x2, b, y, threads_per_block, stream);
}

void squared_difference(course::device_span_2d<const float> x, course::device_span<const float> y,
                        course::device_span_2d<float> out, cudaStream_t stream) {
    squared_difference_impl(x, y, out, stream);
}
void squared_difference(course::device_span_2d<const double> x,
                        course::device_span<const double> y, course::device_span_2d<double> out,
                        cudaStream_t stream) {
    squared_difference_impl(x, y, out, stream);
}

void clamp(course::device_span<const float> x, float lo, float hi, course::device_span<float> out,
           cudaStream_t stream) {
    clamp_impl(x, lo, hi, out, stream);
}
void clamp(course::device_span<const double> x, double lo, double hi,
           course::device_span<double> out, cudaStream_t stream) {
    clamp_impl(x, lo, hi, out, stream);
}

void lerp(course::device_span<const float> a, course::device_span<const float> b,
          course::device_span<const float> t, course::device_span<float> out,
          cudaStream_t stream) {
    lerp_impl(a, b, t, out, stream);
}
void lerp(course::device_span<const double> a, course::device_span<const double> b,
          course::device_span<const double> t, course::device_span<double> out,
          cudaStream_t stream) {
    lerp_impl(a, b, t, out, stream);
}

}  // namespace lesson06
