#pragma once
// Lesson 06, part 5: kernels from a lambda. Read lessons/06_kernels/README.md first.
//
//     auto axpb = vectorize([] __device__(auto x, auto a, auto b) { return a * x + b; });
//     axpb(out, x, 2.0, shift);      // one kernel: out = 2 x + shift, broadcast
//
// vectorize(f) turns a scalar __device__ function into a function over whole
// arrays, as Numba's @vectorize(target='cuda') turns a Python function into a
// ufunc. Calling it checks the shapes, turns every argument into an input of
// the elementwise launcher (part 1) and makes ONE launch: however many
// operations the lambda holds, they are fused into one kernel, as cupy.fuse
// fuses an expression.
//
// Your work here: strided_input (NumPy's broadcasting by strides),
// broadcast_to (the shape check) and the 2D call of ufunc.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "course/device_span.hpp"
#include "course/device_span_2d.hpp"
#include "elementwise.cuh"

namespace lesson06 {

// --- More kinds of input -----------------------------------------------------

// A scalar: the same value for every element of the output.
template <class T>
struct scalar_input {
    using value_type = T;
    T value;

    __device__ T at(std::size_t) const { return value; }
    __device__ pack<T> load(std::size_t) const {
        pack<T> p;
#pragma unroll
        for (int k = 0; k < pack<T>::width; ++k) p.v[k] = value;
        return p;
    }
    bool vectorizable() const { return true; }
};

// A 2D operand broadcast over a rows x cols output, the way NumPy does it:
// one stride per axis, and a stride of 0 along an axis where the operand has
// one element, so that every step along that axis reads the same element
// again. Output element i = r * cols + c reads
//
//     data[r * row_stride + c * col_stride]
//
// (1, cols) has row_stride 0, (rows, 1) has col_stride 0, (1, 1) both.
template <class T>
struct strided_input {
    using value_type = T;
    const T* data;
    std::size_t cols;        // the output's columns: element i is in row i / cols
    std::size_t row_stride;  // the operand's pitch, or 0 if it has one row
    std::size_t col_stride;  // 1, or 0 if it has one column

    // TODO(lesson06): the value output element i sees: split i into its row
    // r = i / cols and column c, then read data at r * row_stride + c * col_stride.
    __device__ T at(std::size_t i) const { return data[0]; }

    // TODO(lesson06): the pack for output elements i .. i + width - 1.
    // vectorizable() below guarantees that they lie in one output row. A
    // column operand (col_stride 0) holds one value for the whole pack:
    // scalar_input<T>{value}.load(i) repeats it. Any other operand holds a
    // pack of consecutive elements there: load_pack(first element).
    __device__ pack<T> load(std::size_t i) const { return load_pack(data); }

    bool vectorizable() const {
        constexpr std::size_t width = pack<T>::width;
        if (cols % width != 0) return false;  // a pack would straddle two rows
        return col_stride == 0 || (is_aligned_16(data) && row_stride % width == 0);
    }
};

// Each argument of a vectorized call becomes an input. A scalar of any
// arithmetic type is converted to T first: a double next to float arrays
// computes in float, as NumPy treats a Python float next to a float32 array.
template <class T, class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
scalar_input<T> as_input(S value) {
    return {static_cast<T>(value)};
}

namespace detail {

inline std::string shape(std::size_t rows, std::size_t cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

}  // namespace detail

// A 2D operand against a rows x cols output: the strides that broadcast it,
// or std::invalid_argument when an axis is neither the output's nor 1.
template <class T>
strided_input<T> broadcast_to(course::device_span_2d<const T> x, std::size_t rows, std::size_t cols) {
    // TODO(lesson06): 1. each axis of x must be the output's size or 1;
    //                    otherwise throw std::invalid_argument naming both
    //                    shapes (detail::shape(rows, cols) writes one);
    //                 2. return {x.data(), cols, row_stride, col_stride}, with
    //                    stride 0 along an axis where x has size 1, else
    //                    x.pitch() for the rows and 1 for the columns.
    // Then delete the line below.
    course::todo("lesson06::broadcast_to in exercises/06_kernels/vectorize.cuh");
}

// --- The vectorized function -----------------------------------------------------

template <class F>
class ufunc {
public:
    ufunc(F f, launch_config config) : f_(f), config_(config) {}

    // The same function, launching on `stream`.
    ufunc on(cudaStream_t stream) const {
        launch_config config = config_;
        config.stream = stream;
        return {f_, config};
    }

    // 1D: out[i] = f(args[i]...) for every i < out.size(). Each argument is
    // a device_span<const T> of out.size() elements, or a scalar.
    template <class T, class... Args>
    void operator()(course::device_span<T> out, const Args&... args) const {
        elementwise(config_, f_, out, as_1d_input<T>(args, out.size())...);
    }

    // 2D: out(r, c) = f(args(r, c)...), each argument broadcast to out's
    // shape: a device_span_2d<const T> of out's shape or with 1 along an
    // axis, or a scalar. out must be dense, so that it is one flat array.
    template <class T, class... Args>
    void operator()(course::device_span_2d<T> out, const Args&... args) const {
        // TODO(lesson06): 1. a pitched output is not one flat array: throw
        //                    std::invalid_argument unless out.is_dense();
        //                 2. view out as a flat device_span<T> of out.size()
        //                    elements;
        //                 3. ONE launch, as the 1D call above makes, with
        //                    as_2d_input<T>(args, out.rows(), out.cols())...
        //                    as the inputs.
        // Then delete the line below.
        course::todo("lesson06::ufunc's 2D call in exercises/06_kernels/vectorize.cuh");
    }

private:
    template <class T>
    static dense_input<T> as_1d_input(course::device_span<const T> x, std::size_t n) {
        if (x.size() != n)
            throw std::invalid_argument("operands could not be broadcast together: an operand of " +
                                        std::to_string(x.size()) + " elements against an output of " +
                                        std::to_string(n));
        return input(x);
    }
    template <class T, class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
    static scalar_input<T> as_1d_input(S value, std::size_t) {
        return as_input<T>(value);
    }

    template <class T>
    static strided_input<T> as_2d_input(course::device_span_2d<const T> x, std::size_t rows,
                                        std::size_t cols) {
        return broadcast_to(x, rows, cols);
    }
    template <class T, class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
    static scalar_input<T> as_2d_input(S value, std::size_t, std::size_t) {
        return as_input<T>(value);
    }

    F f_;
    launch_config config_;
};

// vectorize(f): f is a __device__ lambda (or functor) taking one value per
// argument; `auto` parameters make it serve every element type.
template <class F>
ufunc<F> vectorize(F f, launch_config config = {}) {
    return {f, config};
}

}  // namespace lesson06
