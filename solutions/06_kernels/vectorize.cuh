#pragma once
// Lesson 06, part 5: kernels from a lambda, reference solution.
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

    __device__ T at(std::size_t i) const {
        const std::size_t r = i / cols, c = i - r * cols;
        return data[r * row_stride + c * col_stride];
    }
    // vectorizable() below guarantees that the pack at i lies in one output
    // row: a column operand then holds one value for all of it, any other
    // operand a pack of consecutive elements.
    __device__ pack<T> load(std::size_t i) const {
        const std::size_t r = i / cols, c = i - r * cols;
        const T* first = data + r * row_stride + c * col_stride;
        if (col_stride == 0) return scalar_input<T>{*first}.load(i);
        return load_pack(first);
    }
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
    const auto fits = [](std::size_t have, std::size_t want) { return have == want || have == 1; };
    if (!fits(x.rows(), rows) || !fits(x.cols(), cols))
        throw std::invalid_argument("operands could not be broadcast together: an operand of shape " +
                                    detail::shape(x.rows(), x.cols()) + " against an output of shape " +
                                    detail::shape(rows, cols) +
                                    "; each axis must be the output's or 1");
    // An axis of size 1 gets stride 0, even where the output has size 1 as
    // well: then the stride is never multiplied by anything but 0.
    return {x.data(), cols, x.rows() == 1 ? 0 : x.pitch(), x.cols() == 1 ? std::size_t{0} : 1};
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
        if (!out.is_dense())
            throw std::invalid_argument("a vectorized call writes a dense output (pitch == cols); this one "
                                        "has pitch " + std::to_string(out.pitch()) + " for " +
                                        std::to_string(out.cols()) + " columns");
        // Every operand is checked (and may throw) before anything is launched.
        const course::device_span<T> flat(out.data(), out.size());
        elementwise(config_, f_, flat, as_2d_input<T>(args, out.rows(), out.cols())...);
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
