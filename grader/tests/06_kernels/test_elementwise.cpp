// Graded tests for lesson06, part 1: elementwise kernels. Each GRADED_TEST
// carries its points and the title the report shows.
//
// Every result is compared with a float64 reference, element by element,
// within the rounding error of the operation (a few units of roundoff u,
// scaled by the size of the terms: see each `allowed`). Outputs start as NaN
// with a guard band after them, so unwritten elements and writes past the end
// show; inputs are checked unchanged. Sizes sit just off the block sizes and
// off multiples of 4 (the floats in a 16-byte pack), and some views start one
// element into their allocation, so the 16-byte path must step aside.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/stream_order.hpp"
#include "elementwise_ops.cuh"
#include "kernels_check.hpp"

namespace {

using namespace lesson06::testing;

template <class T>
const char* type_name() {
    return sizeof(T) == 4 ? "float" : "double";
}

// --- multiply_add: y = x1 * x2 + b --------------------------------------------

struct offsets {
    std::size_t x1 = 0, x2 = 0, y = 0;
};

template <class T>
void check_multiply_add(std::size_t n, int threads, offsets at = {}) {
    const std::string what =
        fmt::format("multiply_add<{}>, n = {}, {} threads per block{}", type_name<T>(),
                    course::with_commas(n), threads,
                    at.x1 + at.x2 + at.y == 0
                        ? ""
                        : fmt::format(", views starting at elements {}, {}, {}", at.x1, at.x2, at.y));
    const auto x1 = uniform_input<T>(n + at.x1, "x1");
    const auto x2 = uniform_input<T>(n + at.x2, "x2");
    const T b = T(-0.4375);
    output<T> y(n, at.y);

    lesson06::multiply_add(x1.view(at.x1, n), x2.view(at.x2, n), b, y.view(), threads);
    CUDA_CHECK(cudaDeviceSynchronize());

    // One product and one sum, each rounded once (or both at once with a
    // fused multiply-add): at most u times the size of each term, twice over.
    expectation expected{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        const double product = double{x1.host[i + at.x1]} * double{x2.host[i + at.x2]};
        expected.value[i] = product + double{b};
        expected.allowed[i] = 2 * unit_roundoff<T>() * (std::fabs(product) + std::fabs(double{b}));
    }
    expect_elements(y.result(), expected, what, {}, static_cast<std::size_t>(threads));
    y.expect_untouched_outside(what);
    expect_unchanged(x1);
    expect_unchanged(x2);
}

// --- squared_difference: out(r, c) = (x(r, c) - y[c])^2 ------------------------

template <class T>
void check_squared_difference(std::size_t rows, std::size_t cols) {
    const std::string what =
        fmt::format("squared_difference<{}>, x {} x {} minus y of {}", type_name<T>(), rows, cols, cols);
    const std::size_t n = rows * cols;
    const auto x = uniform_input<T>(n, "x");
    // y's allocation continues past its cols elements (with known values), so
    // that an implementation indexing y wrongly reads numbers we can replay,
    // not memory that is not there.
    const auto y = uniform_input<T>(cols + n, "y");
    output<T> out(n);

    lesson06::squared_difference(course::device_span_2d<const T>(x.device.data(), rows, cols),
                                 y.view(0, cols), course::device_span_2d<T>(out.view().data(), rows, cols));
    CUDA_CHECK(cudaDeviceSynchronize());

    // d = x - y is rounded once (error <= u |d|), d * d once more: 4 u d^2 is ample.
    const auto reference = [&](std::size_t i, std::size_t y_index) {
        const double d = double{x.host[i]} - double{y.host[y_index]};
        return d * d;
    };
    expectation expected{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        expected.value[i] = reference(i, i % cols);
        expected.allowed[i] = 4 * unit_roundoff<T>() * expected.value[i];
    }
    const std::vector<T> actual = out.result();
    // The two usual broadcasting mistakes, replayed: y read at the row
    // (i / cols) or at the flat index i instead of the column (i % cols).
    const auto explain = [&](std::size_t) -> std::string {
        const auto matches = [&](const std::function<std::size_t(std::size_t)>& y_index) {
            for (std::size_t i = 0; i < n; ++i) {
                const double e = reference(i, y_index(i));
                if (std::fabs(double{actual[i]} - e) > 4 * unit_roundoff<T>() * e) return false;
            }
            return true;
        };
        if (rows > 1 && matches([&](std::size_t i) { return i / cols; }))
            return "broadcast index swapped: y was read at i / cols, the row of element i. y is one "
                   "row repeated down the rows, so element i sees y at its column, i % cols.";
        if (rows > 1 && matches([](std::size_t i) { return i; }))
            return "no broadcast: y was read at the flat index i, past its cols elements. A "
                   "broadcast row repeats: element i sees y[i % cols].";
        return "check the broadcast: output element i = r * cols + c needs x[i] and y[c], "
               "c = i % cols.";
    };
    expect_elements(actual, expected, what, explain);
    out.expect_untouched_outside(what);
    expect_unchanged(x);
    expect_unchanged(y);
}

// --- clamp and lerp ------------------------------------------------------------

template <class T>
void check_clamp(std::size_t n, std::size_t offset) {
    const std::string what = fmt::format("clamp<{}>, n = {}, view starting at element {}",
                                         type_name<T>(), course::with_commas(n), offset);
    const auto x = uniform_input<T>(n + offset, "x", -2.0, 2.0);
    const T lo = T(-0.5), hi = T(1.25);
    output<T> out(n);
    lesson06::clamp(x.view(offset, n), lo, hi, out.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    expectation expected{std::vector<double>(n), std::vector<double>(n, 0.0)};  // exact: no rounding
    for (std::size_t i = 0; i < n; ++i)
        expected.value[i] = std::min(std::max(double{x.host[i + offset]}, double{lo}), double{hi});
    expect_elements(out.result(), expected, what, [](std::size_t) {
        return std::string("clamp(x, lo, hi) is min(max(x, lo), hi): lo for x below it, hi for x above it");
    });
    out.expect_untouched_outside(what);
    expect_unchanged(x);
}

template <class T>
void check_lerp(std::size_t n, std::size_t offset) {
    const std::string what = fmt::format("lerp<{}>, n = {}, output starting at element {}",
                                         type_name<T>(), course::with_commas(n), offset);
    const auto a = uniform_input<T>(n, "a");
    const auto b = uniform_input<T>(n, "b");
    const auto t = uniform_input<T>(n, "t", 0.0, 1.0);
    output<T> out(n, offset);
    lesson06::lerp(a.view(), b.view(), t.view(), out.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    // Three roundings (b - a, the product, the sum), each at most u times a
    // term no larger than |a| + |t (b - a)|, doubled for safety.
    expectation expected{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        const double step = double{t.host[i]} * (double{b.host[i]} - double{a.host[i]});
        expected.value[i] = double{a.host[i]} + step;
        expected.allowed[i] = 6 * unit_roundoff<T>() *
                              (std::fabs(double{a.host[i]}) + std::fabs(double{b.host[i]}) + std::fabs(step));
    }
    expect_elements(out.result(), expected, what, [](std::size_t) {
        return std::string("lerp(a, b, t) is a + t * (b - a): check the order of the three inputs");
    });
    out.expect_untouched_outside(what);
    expect_unchanged(a);
    expect_unchanged(b);
    expect_unchanged(t);
}

}  // namespace

// ---------------------------------------------------------------------------
// multiply_add, the seed's exercise 1
GRADED_TEST(Elementwise, MultiplyAddEmpty, 1, "multiply_add: empty input launches nothing and writes nothing") {
    check_multiply_add<float>(0, 256);
}

GRADED_TEST(Elementwise, MultiplyAddSmall, 1, "multiply_add: 1, 3 and 127 elements") {
    for (std::size_t n : {1, 3, 127}) check_multiply_add<float>(n, 128);
}

GRADED_TEST(Elementwise, MultiplyAddBlockEdges, 2,
            "multiply_add: 128, 129, 1023 and 1025 elements, block sizes 32 to 1024") {
    for (std::size_t n : {128, 129, 1023, 1025})
        for (int threads : {32, 64, 128, 256, 512, 1024}) check_multiply_add<float>(n, threads);
}

GRADED_TEST(Elementwise, MultiplyAddLarge, 2, "multiply_add: 2^24 + 11 elements") {
    check_multiply_add<float>((std::size_t{1} << 24) + 11, 256);
}

GRADED_TEST(Elementwise, MultiplyAddMisaligned, 2,
            "multiply_add: views that start mid-allocation (not 16-byte aligned)") {
    // Each case leaves at least one span off a 16-byte boundary: 16-byte loads
    // there would fault (misaligned address), so the element-by-element path
    // must take over.
    for (std::size_t n : {1000, 1001, 4099}) {
        check_multiply_add<float>(n, 256, {.x1 = 1});
        check_multiply_add<float>(n, 256, {.y = 1});
        check_multiply_add<float>(n, 256, {.x1 = 3, .x2 = 2, .y = 1});
        check_multiply_add<float>(n, 256, {.x1 = 4, .x2 = 4, .y = 4});  // aligned again: 4 floats = 16 bytes
    }
}

GRADED_TEST(Elementwise, MultiplyAddDouble, 1, "multiply_add in double: 1025 and 2^20 + 3 elements") {
    check_multiply_add<double>(1025, 128);
    check_multiply_add<double>((std::size_t{1} << 20) + 3, 256);
    check_multiply_add<double>(1001, 256, {.x1 = 1});
}

GRADED_TEST(Elementwise, RejectsTooManyThreads, 1, "multiply_add with 2048 threads per block is reported as an error") {
    const auto x1 = uniform_input<float>(4096, "x1");
    const auto x2 = uniform_input<float>(4096, "x2");
    output<float> y(4096);
    course::testing::expect_launch_refused(
        [&] { lesson06::multiply_add(x1.view(), x2.view(), 1.0f, y.view(), 2048); },
        "multiply_add with 2048 threads per block");
}

GRADED_STREAM_TEST(Elementwise, HonoursStream, 1,
            "multiply_add honours a non-blocking stream with work queued ahead (100,003 elements)") {
    using namespace course::testing;
    const std::size_t n = 100003;
    const float b = -0.4375f;
    course::device_array<float> x1(n), x2(n), y(n);
    stream_order_check check;
    check.call_name = "multiply_add";
    check.right_way = "launch with `<<<grid, block, 0, stream>>>`";
    check.inputs = {random_stream_input(x1.view(), "x1"), random_stream_input(x2.view(), "x2")};
    check.call = [&, out = y.view()](cudaStream_t s) { lesson06::multiply_add(x1.view(), x2.view(), b, out, 256, s); };
    check.output = y.view();
    check.expected = [b](const std::vector<std::vector<float>>& v) {
        std::vector<double> expected(v[0].size());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = double{v[0][i]} * double{v[1][i]} + double{b};
        return expected;
    };
    // Two roundings of terms below 1.5 in size (see check_multiply_add); a
    // value from other inputs is off by far more.
    check.tol = {0.0, 4 * unit_roundoff<float>() * 1.5};
    expect_honours_stream(check);
}

// ---------------------------------------------------------------------------
// Broadcasting
GRADED_TEST(Elementwise, SquaredDifferenceSeed, 2,
            "squared_difference: x of 2 x 5 minus y of 5, y broadcast over the rows") {
    check_squared_difference<float>(2, 5);
    check_squared_difference<double>(2, 5);
}

GRADED_TEST(Elementwise, SquaredDifferenceShapes, 2,
            "squared_difference: 1 x 1, 37 x 129, 64 x 256, 1000 x 3 (float and double)") {
    for (const auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {37, 129}, {64, 256}, {1000, 3}}) {
        check_squared_difference<float>(rows, cols);
        check_squared_difference<double>(rows, cols);
    }
}

// ---------------------------------------------------------------------------
// One and three inputs through the same launcher
GRADED_TEST(Elementwise, ClampOneInput, 1, "clamp, one input: 1, 1025 and 2^20 + 1 elements (float and double)") {
    for (std::size_t n : {1, 1025, (1 << 20) + 1}) {
        check_clamp<float>(n, 0);
        check_clamp<double>(n, 0);
    }
    check_clamp<float>(1001, 1);
}

GRADED_TEST(Elementwise, LerpThreeInputs, 1, "lerp, three inputs: 3, 1025 and 2^20 + 2 elements (float and double)") {
    for (std::size_t n : {3, 1025, (1 << 20) + 2}) {
        check_lerp<float>(n, 0);
        check_lerp<double>(n, 0);
    }
    check_lerp<float>(1001, 1);
}

GRADED_TEST(Elementwise, RejectsMismatchedSizes, 1, "sizes that do not fit are refused with std::invalid_argument") {
    const auto x = uniform_input<float>(100, "x");
    output<float> out(100);
    expect_invalid_argument([&] { lesson06::multiply_add(x.view(0, 100), x.view(0, 99), 1.0f, out.view()); },
                            "multiply_add with x2 of 99 elements and y of 100");
    expect_invalid_argument(
        [&] {
            lesson06::squared_difference(course::device_span_2d<const float>(x.device.data(), 10, 10),
                                         x.view(0, 9), course::device_span_2d<float>(out.view().data(), 10, 10));
        },
        "squared_difference with x 10 x 10 and y of 9");
    expect_invalid_argument([&] { lesson06::lerp(x.view(), x.view(), x.view(0, 50), out.view()); },
                            "lerp with t of 50 elements and out of 100");
}
