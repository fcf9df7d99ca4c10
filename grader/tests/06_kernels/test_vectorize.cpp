// Graded tests for lesson06, part 5: kernels from a lambda (vectorize). Each
// GRADED_TEST carries its points and the title the report shows.
//
// The contract's functions are each one __device__ lambda given to the
// student's vectorize, so these tests grade vectorize through them: NumPy's
// broadcasting (every combination of full, row, column and single-value
// operands, pitched operands, shapes that do not fit), the element types
// (float, double and int32 from one lambda, each computed in its own type;
// scalars converted to the array's type) and one kernel per call, counted
// from a CUDA graph capture.
//
// Every operand lives at the start of a longer allocation of known values,
// so an implementation that indexes an operand wrongly reads numbers these
// tests can replay, and a failure can say which mistake gives exactly what
// came out.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "course/error.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "kernels_check.hpp"
#include "vectorized_ops.cuh"

namespace {

using namespace lesson06::testing;
using course::testing::observe;

template <class T>
const char* type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    if constexpr (std::is_same_v<T, double>) return "double";
    return "int32";
}

// --- Operands and their broadcasting ----------------------------------------------

// An operand's shape against a rows x cols output: each axis the output's or 1.
enum class kind { full, row, column, single };

const char* kind_name(kind k) {
    switch (k) {
        case kind::full: return "full";
        case kind::row: return "row";
        case kind::column: return "column";
        case kind::single: return "single value";
    }
    return "?";
}

// Values for an operand. float and double are uniform in [-1, 1) (double with
// bits below float's precision); int32 up to 2^26, whose products with the
// small int scales below need more bits than a float has.
template <class T>
input<T> values(std::size_t n, const std::string& name, bool small = false) {
    if constexpr (std::is_same_v<T, std::int32_t>)
        return small ? int32_input(n, name, -3, 3) : int32_input(n, name, -(1 << 26), 1 << 26);
    else
        return uniform_input<T>(n, name);
}

// One operand of out_rows x out_cols: its shape and pitch, its values at the
// start of an allocation that goes on for out_rows * (out_cols + pitch) more
// elements, far enough for any replay below.
template <class T>
struct operand {
    std::string name;
    std::size_t rows, cols, pitch;
    input<T> data;

    course::device_span_2d<const T> view() const { return {data.device.data(), rows, cols, pitch}; }
    std::string shape() const {
        return fmt::format("({}, {}){}", rows, cols, pitch == cols ? "" : fmt::format(" pitch {}", pitch));
    }

    // What output element (r, c) sees under NumPy's rule: an axis of size 1
    // has stride 0.
    double at(std::size_t r, std::size_t c) const {
        return static_cast<double>(data.host[(rows == 1 ? 0 : r) * pitch + (cols == 1 ? 0 : c)]);
    }
    // Replays of two mistakes: the operand read with its own strides, as if
    // it had the output's shape (no zero stride); its rows taken cols apart
    // instead of pitch apart.
    double at_without_zero_strides(std::size_t r, std::size_t c) const {
        return static_cast<double>(data.host[r * pitch + c]);
    }
    double at_ignoring_pitch(std::size_t r, std::size_t c) const {
        return static_cast<double>(data.host[(rows == 1 ? 0 : r) * cols + (cols == 1 ? 0 : c)]);
    }
};

template <class T>
operand<T> make_operand(const std::string& name, kind k, std::size_t out_rows, std::size_t out_cols,
                        std::size_t padding = 0, bool small = false) {
    const std::size_t rows = (k == kind::full || k == kind::column) ? out_rows : 1;
    const std::size_t cols = (k == kind::full || k == kind::row) ? out_cols : 1;
    const std::size_t pitch = cols + padding;
    const std::size_t spare = out_rows * (out_cols + pitch) + out_cols;
    return {name, rows, cols, pitch, values<T>(rows * pitch + spare, name, small)};
}

// out(r, c) = x * scale + shift under a reading of the operands (NumPy's, or a
// replayed mistake).
template <class T>
using reading = double (operand<T>::*)(std::size_t, std::size_t) const;

template <class T>
double affine_at(const operand<T>& x, const operand<T>& s, const operand<T>& b, std::size_t r, std::size_t c,
                 reading<T> how) {
    return (x.*how)(r, c) * (s.*how)(r, c) + (b.*how)(r, c);
}

// Calls lesson06::affine on the three operands into a fresh rows x cols
// output, and checks every element: exact for int32; for float and double
// within two roundings (the product and the sum, or one fused multiply-add).
template <class T>
void check_affine(const operand<T>& x, const operand<T>& s, const operand<T>& b, std::size_t rows,
                  std::size_t cols) {
    const std::string what =
        fmt::format("affine<{}>, out {} x {} from x {}, scale {}, shift {}", type_name<T>(), rows, cols,
                    x.shape(), s.shape(), b.shape());
    output<T> out(rows * cols);
    lesson06::affine(x.view(), s.view(), b.view(), course::device_span_2d<T>(out.view().data(), rows, cols));
    CUDA_CHECK(cudaDeviceSynchronize());

    const std::size_t n = rows * cols;
    const double u = std::is_integral_v<T> ? 0.0 : unit_roundoff<T>();
    expectation expected{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) {
            const double product = x.at(r, c) * s.at(r, c);
            expected.value[r * cols + c] = product + b.at(r, c);
            expected.allowed[r * cols + c] = 2 * u * (std::fabs(product) + std::fabs(b.at(r, c)));
        }
    const std::vector<T> actual = out.result();

    // Which reading of the operands gives what came out, if not NumPy's: a
    // replayed mistake names the cause only where it gives other values than
    // the right reading does, and every element came out as it predicts.
    const auto matches = [&](reading<T> how) {
        bool differs = false;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) {
                const double product = (x.*how)(r, c) * (s.*how)(r, c);
                const double e = product + (b.*how)(r, c);
                const double got = static_cast<double>(actual[r * cols + c]);
                if (!(std::fabs(got - e) <= 2 * u * (std::fabs(product) + std::fabs((b.*how)(r, c))))) return false;
                differs = differs || e != expected.value[r * cols + c];
            }
        return differs;
    };
    // A result computed in float has float's rounding: about 2^-24 of each
    // term, where double and int32 must do far better.
    const auto computed_in_float = [&] {
        if (std::is_same_v<T, float>) return false;
        for (std::size_t i = 0; i < n; ++i) {
            const double e = expected.value[i];
            if (!(std::fabs(static_cast<double>(actual[i]) - e) <= 4 * 0x1p-24 * (std::fabs(e) + 1))) return false;
        }
        return true;
    };
    const auto explain = [&](std::size_t) -> std::string {
        if (matches(&operand<T>::at_without_zero_strides))
            return "every operand was read as if it had the output's shape: a broadcast axis kept its "
                   "stride. Where an operand has size 1 along an axis, its stride along that axis is 0, "
                   "so that every row (or column) of the output reads the same values: NumPy's rule.";
        if (matches(&operand<T>::at_ignoring_pitch))
            return "a pitched operand's rows were read cols elements apart; they start pitch() elements "
                   "apart (the padding after each row is not part of the view). Its row stride is x.pitch().";
        if (computed_in_float())
            return fmt::format("the results are right to about float's precision only: was the {} "
                               "computation done in float somewhere (a cast, a float parameter)?",
                               type_name<T>());
        return "out(r, c) = x(r, c) * scale(r, c) + shift(r, c), where an operand of one row gives the "
               "same row to every output row and an operand of one column the same column to every output "
               "column: check the strides broadcast_to gives, and how strided_input reads them.";
    };
    expect_elements(actual, expected, what, explain);
    out.expect_untouched_outside(what);
    expect_unchanged(x.data);
    expect_unchanged(s.data);
    expect_unchanged(b.data);
}

// The output of a call that must not run: n elements, which must still hold
// the poison the output started with.
template <class T>
void expect_unwritten(const output<T>& out, const std::string& what) {
    const std::vector<T> now = out.result();
    std::size_t written = 0;
    for (const T v : now) written += std::isnan(static_cast<double>(v)) ? 0 : 1;
    if (observe("elements written by a refused call", written) > 0)
        ADD_FAILURE() << fmt::format("{}: {} element(s) of the output were written before the call threw; "
                                     "check every operand's shape first, then launch.",
                                     what, written);
}

// --- cubic and multiply_add_vectorized, 1D ------------------------------------------

constexpr std::array<double, 4> coefficients = {0.3, -1.7, 0.11, 2.9};

template <class T>
void check_cubic(std::size_t n, std::size_t offset) {
    const std::string what = fmt::format("cubic<{}>, n = {}, coefficients {}, {}, {}, {}{}", type_name<T>(),
                                         course::with_commas(n), coefficients[0], coefficients[1],
                                         coefficients[2], coefficients[3],
                                         offset == 0 ? "" : fmt::format(", x starting at element {}", offset));
    const auto x = uniform_input<T>(n + offset, "x", -1.5, 1.5);
    output<T> out(n);
    lesson06::cubic(x.view(offset, n), coefficients[0], coefficients[1], coefficients[2], coefficients[3],
                    out.view());
    CUDA_CHECK(cudaDeviceSynchronize());

    // The coefficients as the contract says the kernel sees them: converted
    // to T. Horner's rule rounds six times, each within u of a term no larger
    // than the sum of the terms' sizes.
    const auto horner = [](double v, const std::array<double, 4>& a) { return a[0] + v * (a[1] + v * (a[2] + v * a[3])); };
    std::array<double, 4> in_t{}, through_float{};
    for (int k = 0; k < 4; ++k) {
        in_t[k] = static_cast<double>(static_cast<T>(coefficients[k]));
        through_float[k] = static_cast<double>(static_cast<float>(coefficients[k]));
    }
    expectation expected{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(x.host[i + offset]);
        expected.value[i] = horner(v, in_t);
        const double size = std::fabs(in_t[0]) + std::fabs(v * in_t[1]) + std::fabs(v * v * in_t[2]) +
                            std::fabs(v * v * v * in_t[3]);
        expected.allowed[i] = 8 * unit_roundoff<T>() * size;
    }
    const std::vector<T> actual = out.result();
    const auto explain = [&](std::size_t) -> std::string {
        if (std::is_same_v<T, double>) {
            bool float_coefficients = true;
            for (std::size_t i = 0; i < n && float_coefficients; ++i) {
                const double e = horner(static_cast<double>(x.host[i + offset]), through_float);
                float_coefficients = std::fabs(static_cast<double>(actual[i]) - e) <= 2 * expected.allowed[i] + 1e-300;
            }
            if (float_coefficients)
                return "these are the values for the coefficients rounded to float: in the double version, "
                       "the scalars must be converted to double (the array's type), not through float.";
        }
        return "out[i] = c0 + x[i] * (c1 + x[i] * (c2 + x[i] * c3)), with the four coefficients passed as "
               "scalar arguments in that order";
    };
    expect_elements(actual, expected, what, explain);
    out.expect_untouched_outside(what);
    expect_unchanged(x);
}

void check_multiply_add_vectorized(std::size_t n, std::size_t x1_at, std::size_t y_at) {
    const std::string what =
        fmt::format("multiply_add_vectorized, n = {}{}", course::with_commas(n),
                    x1_at + y_at == 0 ? "" : fmt::format(", views starting at elements {}, 0, {}", x1_at, y_at));
    const auto x1 = uniform_input<float>(n + x1_at, "x1");
    const auto x2 = uniform_input<float>(n, "x2");
    const float b = -0.4375f;
    output<float> y(n, y_at);
    lesson06::multiply_add_vectorized(x1.view(x1_at, n), x2.view(), b, y.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    expectation expected{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        const double product = double{x1.host[i + x1_at]} * double{x2.host[i]};
        expected.value[i] = product + double{b};
        expected.allowed[i] = 2 * unit_roundoff<float>() * (std::fabs(product) + std::fabs(double{b}));
    }
    expect_elements(y.result(), expected, what, [](std::size_t) {
        return std::string("y[i] = x1[i] * x2[i] + b: the lambda's arguments come in the order of the call's");
    });
    y.expect_untouched_outside(what);
    expect_unchanged(x1);
    expect_unchanged(x2);
}

}  // namespace

// ---------------------------------------------------------------------------
GRADED_TEST(Vectorize, AffineFullShapes, 1,
            "affine: three operands of the output's shape, dense and pitched, 1 x 1 to 64 x 256") {
    using shape = std::pair<std::size_t, std::size_t>;
    for (const auto [rows, cols] : std::vector<shape>{{1, 1}, {3, 5}, {37, 129}, {64, 256}}) {
        for (const std::size_t padding : {std::size_t{0}, std::size_t{3}, std::size_t{4}}) {
            const auto x = make_operand<float>("x", kind::full, rows, cols, padding);
            const auto s = make_operand<float>("scale", kind::full, rows, cols, padding);
            const auto b = make_operand<float>("shift", kind::full, rows, cols);
            check_affine(x, s, b, rows, cols);
            if (::testing::Test::HasFailure()) return;  // one shape's failure says it all
        }
    }
}

GRADED_TEST(Vectorize, AffineBroadcastShapes, 3,
            "affine: every mix of full, row, column and single-value operands, at 37 x 129 and 16 x 64") {
    constexpr std::array<kind, 4> kinds = {kind::full, kind::row, kind::column, kind::single};
    using shape = std::pair<std::size_t, std::size_t>;
    for (const auto [rows, cols] : std::vector<shape>{{37, 129}, {16, 64}}) {
        for (const kind kx : kinds)
            for (const kind ks : kinds)
                for (const kind kb : kinds) {
                    SCOPED_TRACE(fmt::format("x {}, scale {}, shift {}", kind_name(kx), kind_name(ks), kind_name(kb)));
                    check_affine(make_operand<float>("x", kx, rows, cols), make_operand<float>("scale", ks, rows, cols),
                                 make_operand<float>("shift", kb, rows, cols), rows, cols);
                    if (::testing::Test::HasFailure()) return;
                }
    }
}

GRADED_TEST(Vectorize, ShapesThatDoNotBroadcast, 1,
            "shapes that do not broadcast, and a pitched output, are refused with std::invalid_argument") {
    const std::size_t rows = 4, cols = 6;
    const auto full = make_operand<float>("x", kind::full, rows, cols);
    const auto data = uniform_input<float>(4 * rows * cols, "other");
    using shape = std::pair<std::size_t, std::size_t>;
    for (const auto [r, c] : std::vector<shape>{{3, 6}, {4, 5}, {2, 6}, {4, 2}, {6, 4}, {1, 5}, {5, 1}}) {
        output<float> out(rows * cols);
        const std::string what = fmt::format("affine into 4 x 6 with scale of shape ({}, {})", r, c);
        expect_invalid_argument(
            [&] {
                lesson06::affine(full.view(), course::device_span_2d<const float>(data.device.data(), r, c),
                                 full.view(), course::device_span_2d<float>(out.view().data(), rows, cols));
            },
            what);
        expect_unwritten(out, what);
    }
    {
        output<float> out(rows * 8);
        expect_invalid_argument(
            [&] {
                lesson06::affine(full.view(), full.view(), full.view(),
                                 course::device_span_2d<float>(out.view().data(), rows, cols, 8));
            },
            "affine into a 4 x 6 output with pitch 8 (not one flat array)");
    }
    output<float> out(rows * cols);
    expect_invalid_argument(
        [&] { lesson06::cubic(data.view(0, 23), 1, 2, 3, 4, out.view()); }, "cubic with x of 23 elements and out of 24");
    expect_invalid_argument(
        [&] { lesson06::multiply_add_vectorized(data.view(0, 24), data.view(0, 25), 1.0f, out.view()); },
        "multiply_add_vectorized with x2 of 25 elements and y of 24");
    expect_unwritten(out, "cubic and multiply_add_vectorized with sizes that do not fit");
}

GRADED_TEST(Vectorize, Types, 2,
            "one lambda, three types: affine in double (to double's precision) and in int32 (exact)") {
    using shape = std::pair<std::size_t, std::size_t>;
    for (const auto [rows, cols] : std::vector<shape>{{37, 129}, {16, 64}}) {
        check_affine(make_operand<double>("x", kind::full, rows, cols), make_operand<double>("scale", kind::row, rows, cols),
                     make_operand<double>("shift", kind::column, rows, cols), rows, cols);
        // int32: x and shift up to 2^26, scale from -3 to 3: every result
        // fits in an int and needs up to 28 bits, more than a float has.
        check_affine(make_operand<std::int32_t>("x", kind::full, rows, cols),
                     make_operand<std::int32_t>("scale", kind::row, rows, cols, 0, true),
                     make_operand<std::int32_t>("shift", kind::full, rows, cols), rows, cols);
    }
}

GRADED_TEST(Vectorize, CubicScalars, 1,
            "cubic: four scalar coefficients broadcast, in float and double, 0 to 2^20 + 3 elements") {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1025}, (std::size_t{1} << 20) + 3}) {
        check_cubic<float>(n, 0);
        check_cubic<double>(n, 0);
    }
    check_cubic<float>(1001, 1);
    check_cubic<double>(1001, 1);
}

GRADED_TEST(Vectorize, MultiplyAddFromLambda, 1,
            "multiply_add_vectorized: 1 to 2^24 + 11 elements, views off 16-byte boundaries") {
    for (const std::size_t n : {std::size_t{1}, std::size_t{129}, std::size_t{1025}, (std::size_t{1} << 24) + 11})
        check_multiply_add_vectorized(n, 0, 0);
    check_multiply_add_vectorized(4099, 1, 0);
    check_multiply_add_vectorized(4099, 0, 3);
}

GRADED_TEST(Vectorize, OneLaunch, 1, "each vectorized call is one kernel, whatever it broadcasts; an empty one none") {
    const std::size_t rows = 64, cols = 256, n = rows * cols;
    const auto x = make_operand<float>("x", kind::full, rows, cols);
    const auto s = make_operand<float>("scale", kind::row, rows, cols);
    const auto b = make_operand<float>("shift", kind::column, rows, cols);
    course::device_array<float> out(n);
    const auto affine = [&](cudaStream_t stream) {
        lesson06::affine(x.view(), s.view(), b.view(), course::device_span_2d<float>(out.data(), rows, cols), stream);
    };
    const auto cubic = [&](cudaStream_t stream) {
        lesson06::cubic(x.data.view(0, n), 1, 2, 3, 4, out.view(), stream);
    };
    const auto multiply_add = [&](cudaStream_t stream) {
        lesson06::multiply_add_vectorized(x.data.view(0, n), x.data.view(0, n), 0.5f, out.view(), stream);
    };
    // An empty output, 0 x 256, with operands that broadcast to it: (1, 256)
    // rows (a (64, 1) column would not: 64 is neither 0 nor 1).
    const auto empty = [&](cudaStream_t stream) {
        lesson06::affine(s.view(), s.view(), s.view(), course::device_span_2d<float>(out.data(), 0, cols), stream);
    };
    struct expected_kernels {
        const char* what;
        std::function<void(cudaStream_t)> call;
        std::size_t kernels;
    };
    const std::vector<expected_kernels> calls = {
        {"affine with a full, a row and a column operand", affine, 1},
        {"cubic with four scalars", cubic, 1},
        {"multiply_add_vectorized", multiply_add, 1},
        {"affine into an empty 0 x 256 output", empty, 0}};
    // Each once first, outside the capture: the first launch of a kernel
    // loads its code, which is not something to capture.
    for (const auto& c : calls) c.call(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());

    for (const auto& [what, call, want] : calls) {
        const std::size_t launched = kernels_launched(call);
        if (launched == want) continue;
        ADD_FAILURE() << fmt::format(
            "{} launched {} kernel(s) on the stream it was given; {}.{}", what, launched,
            want == 1 ? "a vectorized call is one kernel: the whole lambda is the loop body, every operand "
                        "broadcast inside it, and several operations fuse into one lambda"
                      : "an empty output launches nothing (a grid of 0 blocks is an invalid launch)",
            launched == 0 && want == 1 ? " (None at all on that stream: is the stream passed to the launch?)" : "");
    }
}
