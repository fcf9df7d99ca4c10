// Graded tests for lesson06, part 2: reductions. Each GRADED_TEST carries its
// points and the title the report shows.
//
// How exact can a reduction be asked to be? It depends on the input:
//   - Whole numbers: every partial sum of a few million small whole numbers is
//     a whole number below 2^24, which float holds exactly. Each addition is
//     then exact, in any order, so the sum must be exactly right: an element
//     skipped or counted twice, or a partial result lost to a race, shows as
//     a wrong whole number. Most tests use these.
//   - Random floats: each addition rounds, and the error depends on the order
//     the implementation chose. The bound (sum_bound below) grows with n.
//   - The maximum is exact in any order, for any input.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/random.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/stream_order.hpp"
#include "kernels_check.hpp"
#include "reductions.cuh"

namespace {

using namespace lesson06::testing;

template <class T>
const char* type_name() {
    return sizeof(T) == 4 ? "float" : "double";
}

template <class T>
using reduce_fn = std::function<void(course::device_span<const T>, course::device_span<T>)>;

template <class T>
reduce_fn<T> sum_fn() {
    return [](course::device_span<const T> x, course::device_span<T> out) { lesson06::sum(x, out); };
}
template <class T>
reduce_fn<T> max_fn() {
    return [](course::device_span<const T> x, course::device_span<T> out) { lesson06::max_value(x, out); };
}
template <class T>
reduce_fn<T> l2_fn() {
    return [](course::device_span<const T> x, course::device_span<T> out) { lesson06::l2_norm(x, out); };
}

// Runs a whole-array reduction into a fresh one-element output (NaN before,
// guard band after) and returns the result.
template <class T>
double run(const reduce_fn<T>& reduce, course::device_span<const T> x, const std::string& what) {
    output<T> out(1);
    reduce(x, out.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    out.expect_untouched_outside(what);
    const std::vector<T> result = out.result();  // evidence: a result of any other size reads as NaN
    return result.size() == 1 ? static_cast<double>(result[0]) : std::numeric_limits<double>::quiet_NaN();
}

// The exact sum of whole numbers (they are small: a long long never overflows).
template <class T>
long long exact_sum(const std::vector<T>& host, std::size_t offset, std::size_t n) {
    long long total = 0;
    for (std::size_t i = offset; i < offset + n; ++i) total += static_cast<long long>(host[i]);
    return total;
}

// How far a computed sum of random values may be from the exact one.
// Each of the n - 1 additions rounds by at most u times the partial sum it
// produces. For values of random sign, a partial sum behaves like a random
// walk and stays below about sqrt(sum of x^2) plus the drift |sum|; for
// positive values (squares) it stays below the total. The rounding errors
// have random signs too, so n of them add up like a random walk: sqrt(n) of
// them. Four times that is passed by any summation order, the plainest loop
// included, yet not by a sum that loses or doubles real elements.
double sum_bound(double u, std::size_t n, double sum_of_squares, double sum) {
    return 4.0 * u * std::sqrt(static_cast<double>(n)) * (std::sqrt(sum_of_squares) + std::fabs(sum)) + u * std::fabs(sum);
}

const std::string exact_sum_advice =
    "These inputs are whole numbers: every partial sum is exact in float, in any order, so the "
    "result must be exact too. A wrong whole number means elements were skipped or counted twice "
    "(the first elements before a 16-byte boundary, the tail after the last whole pack, the last "
    "partial block) or a partial result was lost (a race between the warps' results in shared "
    "memory and the warp that reads them).";

// --- sum -------------------------------------------------------------------------

template <class T>
void check_exact_sum(std::size_t n, std::size_t offset) {
    const std::string what = fmt::format("sum<{}> of {} whole numbers, view starting at element {}",
                                         type_name<T>(), course::with_commas(n), offset);
    const auto x = integer_input<T>(n + offset, "x", -8, 8);
    const double expected = static_cast<double>(exact_sum(x.host, offset, n));
    const double actual = run<T>(sum_fn<T>(), x.view(offset, n), what);
    std::string advice = exact_sum_advice;
    if (n == 0)
        advice = "The sum of no elements is the identity, 0, and it must still be written: launch the "
                 "final step even when there is nothing to reduce.";
    expect_close(actual, expected, 0.0, what, advice);
    expect_unchanged(x);
}

// --- max ----------------------------------------------------------------------------

template <class T>
void check_max(std::size_t n, std::size_t offset, double lo, double hi) {
    const std::string what = fmt::format("max_value<{}> of {} values in [{}, {}), view starting at element {}",
                                         type_name<T>(), course::with_commas(n), lo, hi, offset);
    const auto x = uniform_input<T>(n + offset, "x", lo, hi);
    double expected = -std::numeric_limits<double>::infinity();
    for (std::size_t i = offset; i < offset + n; ++i) expected = std::fmax(expected, double{x.host[i]});
    const double actual = run<T>(max_fn<T>(), x.view(offset, n), what);
    std::string advice;
    if (actual == 0.0 && expected != 0.0)
        advice = "0 is not an element here: it came from the identity. The identity of max must lose "
                 "against every element, so it is -infinity, not 0 (with 0, any array of negative "
                 "numbers has maximum 0).";
    else if (n == 0)
        advice = "The maximum of no elements is the identity, -infinity, and it must still be written.";
    else if (actual < expected)
        advice = "smaller than the largest element: some elements were never looked at (the head "
                 "before a 16-byte boundary, the tail, a block's share) or a partial result was lost.";
    expect_close(actual, expected, 0.0, what, advice);
    expect_unchanged(x);
}

// --- L2 norm --------------------------------------------------------------------------

// What a wrong L2 norm most often is, given the right one and the sum of squares.
std::string diagnose_l2(double actual, double norm, double sum_of_squares, double allowed) {
    const auto near = [&](double value) { return std::fabs(actual - value) <= allowed + 1e-6 * std::fabs(value); };
    if (near(sum_of_squares) && !near(norm))
        return "this is the sum of squares: the square root is missing. The L2 norm's post-map, "
               "sqrt, is applied once, to the final sum.";
    if (near(std::sqrt(norm)) && !near(norm))
        return "this is the square root of the norm: the post-map (sqrt) was applied twice, once to "
               "the partial results and once more at the end. Partial results are only reduced; the "
               "post-map runs once.";
    if (actual > norm)
        return "larger than the norm: was the post-map (sqrt) applied to partial results (per "
               "block) before they were added? sqrt(a) + sqrt(b) is more than sqrt(a + b): the "
               "post-map runs once, on the total. Or was the map (x * x) applied again to the "
               "partial sums?";
    return "check each piece: identity 0, map x * x (once per element), reduce a + b, post-map "
           "sqrt (once, on the total).";
}

template <class T>
void check_l2_exact(std::size_t n) {
    const std::string what = fmt::format("l2_norm<{}> of {} whole numbers", type_name<T>(), course::with_commas(n));
    const auto x = integer_input<T>(n, "x", -3, 3);
    double sum_of_squares = 0;  // exact: whole numbers, small
    for (const T v : x.host) sum_of_squares += double{v} * double{v};
    const double norm = std::sqrt(sum_of_squares);
    // The sum of squares is exact; only its square root rounds (half an ulp,
    // a relative u): 2 u leaves room for an implementation's own sqrt.
    const double allowed = 2 * unit_roundoff<T>() * norm;
    const double actual = run<T>(l2_fn<T>(), x.view(), what);
    expect_close(actual, norm, allowed, what, diagnose_l2(actual, norm, sum_of_squares, allowed));
    expect_unchanged(x);
}

// --- row-wise L2 norm ------------------------------------------------------------------

// A rows x cols matrix on the device whose rows start `pitch` elements apart;
// the padding between rows holds NaN, so reading it poisons a result.
template <class T>
struct matrix_input {
    std::size_t rows, cols, pitch;
    std::vector<T> host;  // dense, rows x cols
    course::testing::guard_paged_array<T> device;  // ends where mapped memory ends

    course::device_span_2d<const T> view() const { return {device.data(), rows, cols, pitch}; }
};

template <class T>
matrix_input<T> make_matrix(std::size_t rows, std::size_t cols, std::size_t pitch, bool whole_numbers) {
    const std::size_t n = rows * cols;
    auto values = whole_numbers ? integer_input<T>(n, "x", -3, 3) : uniform_input<T>(n, "x");
    std::vector<T> padded(rows * pitch, std::numeric_limits<T>::quiet_NaN());
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) padded[r * pitch + c] = values.host[r * cols + c];
    matrix_input<T> m{rows, cols, pitch, std::move(values.host), {}};
    m.device = course::testing::guard_paged_array<T>::from_host(padded, course::testing::guard_side::after, "x");
    return m;
}

template <class T>
void check_row_l2(std::size_t rows, std::size_t cols, std::size_t pitch, bool whole_numbers) {
    if (pitch == 0) pitch = cols;
    const std::string what = fmt::format("row_l2_norm<{}>, {} x {}{}{}", type_name<T>(), rows, cols,
                                         pitch != cols ? fmt::format(" with pitch {}", pitch) : "",
                                         whole_numbers ? " (whole numbers)" : " (random values)");
    const matrix_input<T> x = make_matrix<T>(rows, cols, pitch, whole_numbers);
    output<T> out(rows);
    lesson06::row_l2_norm(x.view(), out.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<T> actual = out.result();

    const double u = unit_roundoff<T>();
    expectation expected{std::vector<double>(rows), std::vector<double>(rows)};
    std::vector<double> sums(rows);
    for (std::size_t r = 0; r < rows; ++r) {
        double s = 0;
        for (std::size_t c = 0; c < cols; ++c) s += double{x.host[r * cols + c]} * double{x.host[r * cols + c]};
        sums[r] = s;
        expected.value[r] = std::sqrt(s);
        // Whole numbers: the sum of squares is exact and only the square root
        // rounds. Random values: sum_bound on the sum of squares (positive
        // terms: partial sums stay below the total), halved by the square root.
        const double relative = whole_numbers ? 2 * u : 0.5 * sum_bound(u, cols, s * s, s) / (s > 0 ? s : 1) + 2 * u;
        expected.allowed[r] = relative * expected.value[r];
    }
    expect_elements(actual, expected, what, [&](std::size_t r) {
        const double a = static_cast<double>(actual[r]);
        return fmt::format("row {}: ", r) + diagnose_l2(a, expected.value[r], sums[r], expected.allowed[r]) +
               (pitch != cols ? " With padded rows, row r starts at r * pitch, not r * cols." : "");
    });
    out.expect_untouched_outside(what);
}

}  // namespace

// ---------------------------------------------------------------------------
// sum
GRADED_TEST(Reduction, SumEdgeSizes, 2,
            "sum: 0, 1, 3, 127, 128, 129, 1023, 1025 and 4099 whole numbers (exact)") {
    for (std::size_t n : {0, 1, 3, 127, 128, 129, 1023, 1025, 4099}) check_exact_sum<float>(n, 0);
}

GRADED_TEST(Reduction, SumMisaligned, 1,
            "sum: views starting 1, 2 and 3 elements into their allocation (exact)") {
    for (std::size_t n : {1000, 1001, 100003})
        for (std::size_t offset : {1, 2, 3}) check_exact_sum<float>(n, offset);
}

GRADED_TEST(Reduction, SumRepeatedLarge, 2,
            "sum: 2^22 + 5 whole numbers, 6 views, 3 times each (exact: catches races)") {
    // Race detection. The values 0..3 keep every partial sum a whole number
    // below 2^24, so any correct order gives exactly the right sum. A block
    // that combines its warps' results without waiting for all of them reads a
    // shared-memory slot before its owner wrote it and gets what an earlier
    // block left there: a wrong whole number. Each view is shifted by one
    // element, so what earlier blocks left behind (from another view) is never
    // the right value by chance; with about a thousand blocks in each of 18
    // runs, some block loses the race.
    const std::size_t n = (std::size_t{1} << 22) + 5;
    const auto x = integer_input<float>(n + 8, "x", 0, 3);
    for (std::size_t offset = 0; offset < 6; ++offset) {
        const double expected = static_cast<double>(exact_sum(x.host, offset, n));
        std::vector<double> results;
        for (int repeat = 0; repeat < 3; ++repeat) {
            const std::string what = fmt::format("sum of {} whole numbers from element {}, run {} of 3",
                                                 course::with_commas(n), offset, repeat + 1);
            results.push_back(run<float>(sum_fn<float>(), x.view(offset, n), what));
        }
        bool all_right = true;
        for (double r : results) all_right = all_right && r == expected;
        if (all_right) continue;
        const bool varies = results[0] != results[1] || results[1] != results[2];
        ADD_FAILURE() << fmt::format(
            "sum of {} whole numbers from element {}: expected {}, got {}, {} and {} in three runs.\n{}",
            course::with_commas(n), offset, expected, results[0], results[1], results[2],
            varies ? "The same input gave different sums: a race. In the block reduction, the warp "
                     "that combines the warps' results read a slot in shared memory before its "
                     "warp wrote it: __syncthreads() must come between the writes and the reads."
                   : exact_sum_advice);
        break;  // one view's story is enough
    }
    expect_unchanged(x);
}

GRADED_STREAM_TEST(Reduction, HonoursStream, 1,
            "sum honours a non-blocking stream with work queued ahead (100,003 whole numbers)") {
    using namespace course::testing;
    const std::size_t n = 100003;
    course::device_array<float> x(n), out(1);
    // Whole numbers, so that any order of the additions is exact: 0 to 8
    // before the stream is held, 9 to 17 written on it. The two sums differ
    // whatever the draw.
    const auto whole = [n](const char* name, float lo) {
        std::vector<float> v = course::random_floats(n, course::derive_seed(seed(), name), lo, lo + 8.0f);
        for (float& e : v) e = std::round(e);
        return v;
    };
    stream_order_check check;
    check.call_name = "sum";
    check.what_ran = "a kernel of yours";
    check.right_way = "launch every kernel with `<<<grid, block, 0, stream>>>`, and allocate scratch memory on the "
                      "stream too";
    check.inputs = {{x.view(), whole("x before", 0.0f), whole("x on the stream", 9.0f)}};
    check.call = [&, result = out.view()](cudaStream_t s) { lesson06::sum(x.view(), result, s); };
    check.output = out.view();
    check.expected = [](const std::vector<std::vector<float>>& v) {
        double total = 0;
        for (const float e : v[0]) total += e;
        return std::vector<double>{total};
    };
    check.tol = {0.0, 0.0};
    expect_honours_stream(check);
}

GRADED_TEST(Reduction, SumAccuracyLarge, 1,
            "sum: 2^24 + 11 random floats, within a bound that grows with n") {
    const std::size_t n = (std::size_t{1} << 24) + 11;
    for (const auto [lo, hi] : {std::pair{-1.0, 1.0}, std::pair{0.0, 1.0}}) {
        const auto x = uniform_input<float>(n, fmt::format("x from {}", lo), lo, hi);
        double sum = 0, squares = 0;
        for (const float v : x.host) {
            sum += v;
            squares += double{v} * v;
        }
        const std::string what = fmt::format("sum of {} random floats in [{}, {})", course::with_commas(n), lo, hi);
        const double actual = run<float>(sum_fn<float>(), x.view(), what);
        expect_close(actual, sum, sum_bound(unit_roundoff<float>(), n, squares, sum), what,
                     "far more than rounding explains: elements lost, counted twice, or a partial "
                     "result lost.");
    }
}

GRADED_TEST(Reduction, SumDouble, 1, "sum in double: whole numbers (exact) and 2^20 + 3 random values") {
    for (std::size_t n : {0, 1, 1025}) check_exact_sum<double>(n, 0);
    check_exact_sum<double>(100003, 1);
    const std::size_t n = (std::size_t{1} << 20) + 3;
    const auto x = uniform_input<double>(n, "x");
    long double sum = 0;
    double squares = 0;
    for (const double v : x.host) {
        sum += v;
        squares += v * v;
    }
    const std::string what = fmt::format("sum<double> of {} random values", course::with_commas(n));
    const double actual = run<double>(sum_fn<double>(), x.view(), what);
    expect_close(actual, static_cast<double>(sum),
                 sum_bound(unit_roundoff<double>(), n, squares, static_cast<double>(sum)), what,
                 "is the sum computed in double all the way (accumulators, shared memory, partials)?");
}

// ---------------------------------------------------------------------------
// max
GRADED_TEST(Reduction, MaxAllNegative, 2, "max_value of negative numbers: 1, 129 and 2^20 + 3 elements") {
    for (std::size_t n : {1, 129, (1 << 20) + 3}) {
        check_max<float>(n, 0, -2.0, -1.0);
        check_max<double>(n, 0, -2.0, -1.0);
    }
}

GRADED_TEST(Reduction, MaxSizes, 1,
            "max_value: empty (-inf), 3, 1025 and 2^24 + 11 elements, views off 16-byte boundaries") {
    check_max<float>(0, 0, -1.0, 1.0);
    check_max<double>(0, 0, -1.0, 1.0);
    for (std::size_t n : {3, 1025}) {
        check_max<float>(n, 0, -1.0, 1.0);
        check_max<float>(n, 1, -1.0, 1.0);
        check_max<double>(n, 1, -1.0, 1.0);
    }
    check_max<float>((std::size_t{1} << 24) + 11, 0, -1.0, 1.0);
}

// ---------------------------------------------------------------------------
// L2 norm: map x * x, reduce a + b, post-map sqrt
GRADED_TEST(Reduction, L2NormSmall, 2, "l2_norm: 0, 1, 3, 129 and 1025 elements (float and double)") {
    for (std::size_t n : {0, 1, 3, 129, 1025}) {
        check_l2_exact<float>(n);
        check_l2_exact<double>(n);
    }
}

GRADED_TEST(Reduction, L2NormLarge, 1, "l2_norm: 2^24 + 11 random floats") {
    const std::size_t n = (std::size_t{1} << 24) + 11;
    const auto x = uniform_input<float>(n, "x");
    double squares = 0, fourth_powers = 0;
    for (const float v : x.host) {
        squares += double{v} * v;
        fourth_powers += double{v} * v * v * v;
    }
    const double norm = std::sqrt(squares);
    const double u = unit_roundoff<float>();
    // sum_bound on the sum of squares, then the square root halves the
    // relative error and adds one rounding of its own.
    const double allowed = (0.5 * sum_bound(u, n, fourth_powers, squares) / squares + 2 * u) * norm;
    const std::string what = fmt::format("l2_norm of {} random floats", course::with_commas(n));
    const double actual = run<float>(l2_fn<float>(), x.view(), what);
    expect_close(actual, norm, allowed, what, diagnose_l2(actual, norm, squares, allowed));
}

// ---------------------------------------------------------------------------
// Along an axis: row-wise L2 norm
GRADED_TEST(Reduction, RowL2Norm, 2, "row_l2_norm: 1 x 1, 2 x 5, 37 x 129, 129 x 37, 3 x 1025, 1000 x 7") {
    for (const auto [rows, cols] : std::vector<std::pair<std::size_t, std::size_t>>{
             {1, 1}, {2, 5}, {37, 129}, {129, 37}, {3, 1025}, {1000, 7}})
        check_row_l2<float>(rows, cols, 0, true);
}

GRADED_TEST(Reduction, RowL2NormPadded, 1,
            "row_l2_norm: padded rows (70 x 100, pitch 103), a row of 0 columns, and double") {
    check_row_l2<float>(70, 100, 103, true);
    check_row_l2<float>(5, 0, 4, true);
    check_row_l2<double>(37, 129, 0, true);
    check_row_l2<double>(70, 100, 103, true);
}

GRADED_TEST(Reduction, RowL2NormLarge, 1, "row_l2_norm: 300 x 100003 random floats") {
    check_row_l2<float>(300, 100003, 0, false);
}

GRADED_TEST(Reduction, RejectsMissingOutput, 1, "a result with no room for it is refused with std::invalid_argument") {
    const auto x = uniform_input<float>(100, "x");
    output<float> out(10);
    expect_invalid_argument([&] { lesson06::sum(x.view(), out.view().first(0)); }, "sum into an empty out");
    expect_invalid_argument(
        [&] { lesson06::row_l2_norm(course::device_span_2d<const float>(x.device.data(), 10, 10), out.view().first(9)); },
        "row_l2_norm of 10 rows into an out of 9 elements");
}
