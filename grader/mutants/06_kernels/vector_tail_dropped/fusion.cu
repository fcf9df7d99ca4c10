// Known-wrong version (grader/mutants): this file is the reference solution's,
// unchanged, copied here so that it includes this folder's (wrong) elementwise.cuh.
// Lesson 06, part 4: kernel fusion, reference solution. Both versions go
// through the elementwise launcher: fused is one launch with the whole
// expression as its body; unfused is three launches, one operation each.
#include <stdexcept>

#include "elementwise.cuh"
#include "fusion.cuh"

namespace lesson06 {

namespace {

// The whole expression in one loop body: x and y are read once, y written
// once; the intermediate values never leave registers.
struct fused_op {
    float a;
    __device__ float operator()(float x, float y) const { return expf(a * sinf(x) + cosf(y)); }
};

// The three steps of the unfused version.
struct scaled_sin_op {
    float a;
    __device__ float operator()(float x) const { return a * sinf(x); }
};
struct plus_cos_op {
    __device__ float operator()(float t, float y) const { return t + cosf(y); }
};
struct exp_op {
    __device__ float operator()(float t) const { return expf(t); }
};

constexpr unsigned threads = 256;

}  // namespace

void fused_update(float a, course::device_span<const float> x, course::device_span<float> y,
                  cudaStream_t stream) {
    if (x.size() != y.size()) throw std::invalid_argument("fused_update: x and y must have the same size");
    // y is both an input and the output: each thread reads y[i] before it
    // writes y[i], and no other thread touches it, so in place is safe.
    const course::device_span<const float> y_in = y;
    elementwise({threads, stream}, fused_op{a}, y, input(x), input(y_in));
}

void unfused_update(float a, course::device_span<const float> x, course::device_span<float> y,
                    course::device_span<float> scratch, cudaStream_t stream) {
    if (x.size() != y.size()) throw std::invalid_argument("unfused_update: x and y must have the same size");
    if (scratch.size() < y.size()) throw std::invalid_argument("unfused_update: scratch is too small");
    const std::size_t n = y.size();
    const course::device_span<float> t = scratch.first(n);
    const course::device_span<const float> t_in = t;
    const course::device_span<const float> y_in = y;
    elementwise({threads, stream}, scaled_sin_op{a}, t, input(x));        // reads x,    writes t
    elementwise({threads, stream}, plus_cos_op{}, t, input(t_in), input(y_in));  // reads t, y, writes t
    elementwise({threads, stream}, exp_op{}, y, input(t_in));            // reads t,    writes y
}

}  // namespace lesson06
