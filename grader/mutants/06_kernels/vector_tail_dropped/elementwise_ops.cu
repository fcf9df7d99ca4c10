// Known-wrong version (grader/mutants): this file is the reference solution's,
// unchanged, copied here so that it includes this folder's (wrong) elementwise.cuh.
// Lesson 06, part 1: elementwise kernels through the generic launcher,
// reference solution.
#include <stdexcept>
#include <string>

#include "elementwise.cuh"
#include "elementwise_ops.cuh"

namespace lesson06 {

namespace {

// Each operation is a small functor: the loop body of a CuPy
// ElementwiseKernel, with its scalar arguments as members. A functor is a
// type of its own, so the launcher's kernel is instantiated for it and the
// call is inlined: no function pointer, no overhead.
template <class T>
struct multiply_add_op {
    T b;
    __device__ T operator()(T x1, T x2) const { return x1 * x2 + b; }
};

template <class T>
struct squared_difference_op {
    __device__ T operator()(T x, T y) const {
        const T d = x - y;
        return d * d;
    }
};

template <class T>
struct lerp_op {
    __device__ T operator()(T a, T b, T t) const { return a + t * (b - a); }
};

void require(bool condition, const std::string& what) {
    if (!condition) throw std::invalid_argument(what);
}

template <class T>
void multiply_add_impl(course::device_span<const T> x1, course::device_span<const T> x2, T b,
                       course::device_span<T> y, int threads, cudaStream_t stream) {
    require(x1.size() == y.size() && x2.size() == y.size(),
            "multiply_add: x1, x2 and y must have the same size");
    elementwise({static_cast<unsigned>(threads), stream}, multiply_add_op<T>{b}, y, input(x1),
                input(x2));
}

template <class T>
void squared_difference_impl(course::device_span_2d<const T> x, course::device_span<const T> y,
                             course::device_span_2d<T> out, cudaStream_t stream) {
    require(x.rows() == out.rows() && x.cols() == out.cols(),
            "squared_difference: x and out must have the same shape");
    require(y.size() == x.cols(), "squared_difference: y must have x.cols() elements");
    require(x.is_dense() && out.is_dense(), "squared_difference: x and out must be dense");
    // Dense matrices are plain arrays of rows * cols elements: flatten them
    // and let y's broadcast work out the column from the flat index.
    const course::device_span<const T> flat_x(x.data(), x.size());
    const course::device_span<T> flat_out(out.data(), out.size());
    elementwise({256, stream}, squared_difference_op<T>{}, flat_out, input(flat_x), broadcast_row(y));
}

template <class T>
void clamp_impl(course::device_span<const T> x, T lo, T hi, course::device_span<T> out,
                cudaStream_t stream) {
    require(x.size() == out.size(), "clamp: x and out must have the same size");
    // A __device__ lambda works as well as a functor (nvcc --extended-lambda,
    // set in lessons/06_kernels/CMakeLists.txt); it captures lo and hi by value.
    elementwise(
        {256, stream}, [lo, hi] __device__(T v) { return v < lo ? lo : (v > hi ? hi : v); }, out,
        input(x));
}

template <class T>
void lerp_impl(course::device_span<const T> a, course::device_span<const T> b,
               course::device_span<const T> t, course::device_span<T> out, cudaStream_t stream) {
    require(a.size() == out.size() && b.size() == out.size() && t.size() == out.size(),
            "lerp: a, b, t and out must have the same size");
    elementwise({256, stream}, lerp_op<T>{}, out, input(a), input(b), input(t));
}

}  // namespace

// The float and double versions are the same template: only T differs.
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
