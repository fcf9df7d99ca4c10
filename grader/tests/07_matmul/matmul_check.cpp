// The product check of lesson07's graded tests: float64 reference, element
// by element comparison, and a diagnosis of what the wrong elements have in
// common.
#include "matmul_check.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "course/compare.hpp"
#include "course/error.hpp"
#include "course/random.hpp"
#include "course/testing/buffers_2d.hpp"
#include "course/testing/expect_2d.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/graded.hpp"
#include "library_symbols.hpp"
#include "matmul_reference.hpp"

namespace lesson07::testing {

using course::with_commas;
using course::testing::after_the_matrix;
using course::testing::guarded_matrix;

const char* name_of(version v) {
    switch (v) {
        case version::naive: return "matmul_naive";
        case version::tiled: return "matmul_tiled";
        case version::register_blocked: return "matmul_register_blocked";
        case version::cublas: return "cublas_matmul";
    }
    return "?";
}

const char* source_of(version v) {
    switch (v) {
        case version::naive: return "matmul_naive.cu";
        case version::tiled: return "matmul_tiled.cu";
        case version::register_blocked: return "matmul_register_blocked.cu";
        case version::cublas: return "matmul_cublas.cu";
    }
    return "?";
}

bool hand_written(version v) { return v != version::cublas; }

void run(version v, const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    switch (v) {
        case version::naive: matmul_naive(a, b, c, stream); return;
        case version::tiled: matmul_tiled(a, b, c, stream); return;
        case version::register_blocked: matmul_register_blocked(a, b, c, stream); return;
        case version::cublas: {
            cublas_matmul multiply;
            multiply(a, b, c, stream);
            return;
        }
    }
}

error_bound float32_bound() { return {2.0 * FLT_EPSILON, 0.0}; }
error_bound exact_bound() { return {0.0, 0.0}; }
error_bound tf32_bound() { return {2.0 * FLT_EPSILON, std::ldexp(1.0, -8)}; }

namespace {

// A dense row-major matrix on the host.
struct host_matrix {
    int rows = 0, cols = 0;
    std::vector<float> values;
    float operator()(int r, int c) const { return values[static_cast<std::size_t>(r) * cols + c]; }
};

reference_rows compute_reference(const host_matrix& a, const host_matrix& b,
                                 const std::vector<int>& rows, bool identity_b) {
    const int n = b.cols;
    if (identity_b) {  // C = A: no need for the O(n^3) loop
        reference_rows ref{rows, std::vector<double>(rows.size() * n, 0.0),
                           std::vector<double>(rows.size() * n, 0.0)};
        for (std::size_t r = 0; r < rows.size(); ++r)
            for (int j = 0; j < n; ++j) {
                ref.value[r * n + j] = a(rows[r], j);
                ref.magnitude[r * n + j] = std::fabs(ref.value[r * n + j]);
            }
        return ref;
    }
    return reference_on_gpu(a.values, a.cols, b.values, n, rows);
}

// sum over k < k_end of a(i, k) b(k, j): what a kernel that stops early computes.
double partial_sum(const host_matrix& a, const host_matrix& b, int i, int j, int k_end) {
    double sum = 0;
    for (int k = 0; k < k_end; ++k) sum += double{a(i, k)} * b(k, j);
    return sum;
}

// An element never written still holds the poison: all bits set.
bool is_poison(float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits == 0xFFFFFFFFu;
}

std::string format_value(double x) { return fmt::format("{:.7g}", x); }

struct wrong_element {
    int row, col;
    double expected, actual, allowed;
    bool unwritten;  // still the poison
};

std::string describe(const wrong_element& w) {
    if (std::isnan(w.actual))
        return fmt::format("C({}, {}): expected {}, got NaN{}", w.row, w.col,
                           format_value(w.expected), w.unwritten ? " (never written)" : "");
    return fmt::format("C({}, {}): expected {}, got {} (off by {:.3g}; allowed {:.3g})", w.row,
                       w.col, format_value(w.expected), format_value(w.actual),
                       std::fabs(w.actual - w.expected), w.allowed);
}

// What computed C, which decides the causes a message may name: a race on
// shared-memory tiles needs tiles, a grid needs a kernel of one's own.
enum class producer { plain_kernel, tiled_kernel, library };

producer producer_of(const std::string& name) {
    if (name.rfind("cublas", 0) == 0) return producer::library;
    if (name == name_of(version::naive)) return producer::plain_kernel;
    return producer::tiled_kernel;
}

// Everything the diagnosis looks at.
struct result_view {
    const host_matrix& a;
    const host_matrix& b;
    const std::vector<float>& c;  // all of C, m x n, dense
    const reference_rows& ref;
    error_bound bound;
    int m, n, k;
    producer by;

    float c_at(int i, int j) const { return c[static_cast<std::size_t>(i) * n + j]; }
    double allowed(std::size_t r, int j) const {
        return (bound.per_k * k + bound.fixed) * ref.magnitude[r * n + j];
    }
    bool ok(std::size_t r, int j, double actual) const {
        const double e = ref.value[r * n + j];
        return std::isfinite(actual) && std::fabs(actual - e) <= allowed(r, j);
    }
};

// The unwritten elements (still poison) form the part of C outside a
// top-left rectangle: the blocks at the right or bottom edge never stored.
std::string diagnose_unwritten(const result_view& v, std::size_t unwritten) {
    int last_row = -1, last_col = -1;
    std::size_t first = v.c.size();
    for (int i = 0; i < v.m; ++i)
        for (int j = 0; j < v.n; ++j) {
            if (is_poison(v.c_at(i, j))) {
                first = std::min(first, static_cast<std::size_t>(i) * v.n + j);
                continue;
            }
            last_row = std::max(last_row, i);
            last_col = std::max(last_col, j);
        }
    if (last_row < 0 && v.by == producer::library)
        return "C was never written: every element still holds the NaN it was filled with. Was "
               "the library call made, and its status checked?";
    if (last_row < 0)
        return "C was never written: every element still holds the NaN it was filled with.\n"
               "Did the kernel run? A launch that fails says so only through "
               "CUDA_CHECK(cudaGetLastError()); a grid of 0 blocks fails that way too.";
    bool corner = true;
    for (int i = 0; i < v.m && corner; ++i)
        for (int j = 0; j < v.n && corner; ++j)
            corner = is_poison(v.c_at(i, j)) == (i > last_row || j > last_col);
    if (corner && v.by != producer::library) {
        auto range = [](const char* one, const char* many, int first, int last) {
            return first == last ? fmt::format("{} {}", one, first)
                                 : fmt::format("{} {} to {}", many, first, last);
        };
        std::string missing;
        if (last_row + 1 < v.m) missing = range("row", "rows", last_row + 1, v.m - 1);
        if (last_col + 1 < v.n)
            missing += (missing.empty() ? "" : " and ") +
                       range("column", "columns", last_col + 1, v.n - 1);
        return fmt::format(
            "only the top-left {} x {} corner of C ({} x {}) was written; the rest ({}) still "
            "holds "
            "the NaN it was filled with.\n"
            "The blocks for the last, partial tiles at the edges of C did not run or did not "
            "store: round the grid up, blocks = (n + tile - 1) / tile, and guard each store with "
            "if (row < M && col < N) instead of skipping a tile that hangs over the edge.",
            last_row + 1, last_col + 1, v.m, v.n, missing);
    }
    if (v.by == producer::library)
        return fmt::format(
            "{} elements of C were never written (still NaN), the first at ({}, {}). The library "
            "wrote only where it was told C is: check the sizes and the leading dimensions (the "
            "pitches) passed to it.",
            with_commas(unwritten), first / v.n, first % v.n);
    return fmt::format(
        "{} elements of C were never written (still NaN), the first at ({}, {}). Each element of "
        "C needs exactly one thread that stores it: check that the grid covers C and that every "
        "thread stores all of the elements it computed.",
        with_commas(unwritten), first / v.n, first % v.n);
}

// C holds the right values in the wrong places: element (i, j) of A x B sits
// where a column-major matrix keeps it.
bool looks_transposed(const result_view& v) {
    if (v.m == 1 && v.n == 1) return false;
    for (std::size_t r = 0; r < v.ref.rows.size(); ++r)
        for (int j = 0; j < v.n; ++j) {
            const float t = v.c[static_cast<std::size_t>(j) * v.m + v.ref.rows[r]];
            if (!v.ok(r, j, t)) return false;
        }
    return true;
}

// Every wrong element is the sum over k < k_end only: the loop along K
// stopped at the last whole tile.
std::string diagnose_k_tail(const result_view& v, const std::vector<wrong_element>& wrong) {
    std::set<int> candidates;
    for (int tile = 2; tile <= 512; tile *= 2)
        if (v.k % tile != 0) candidates.insert(v.k - v.k % tile);
    for (int k_end : candidates) {
        bool all = true;
        for (const auto& w : wrong) {
            if (!std::isfinite(w.actual)) return {};
            const double partial = partial_sum(v.a, v.b, w.row, w.col, k_end);
            if (std::fabs(w.actual - partial) > w.allowed + 1e-6 * std::fabs(partial)) {
                all = false;
                break;
            }
        }
        if (!all) continue;
        if (k_end == 0)
            return fmt::format(
                "every wrong element is 0, as if the loop along K never ran: K = {} is smaller "
                "than your tile, and a loop that takes only whole tiles takes none. The last, "
                "partial tile along K must be used too: round the number of tiles up and load "
                "zeros for k >= K.",
                v.k);
        return fmt::format(
            "every wrong element is the sum over k < {} only: the last {} term(s) of each dot "
            "product are missing. K = {} is not a multiple of your tile, and the last, partial "
            "tile along K was skipped: round the number of tiles up and load zeros for k >= K.",
            k_end, v.k - k_end, v.k);
    }
    return {};
}

// Every wrong element lies in the last, partial row or column of tiles, for
// some tile size, and most of those edge elements are wrong: the whole tiles
// are right, the edges are not. (A few scattered errors that happen to fall
// there, as a race leaves, are no such pattern.)
std::string diagnose_edges(const result_view& v, const std::vector<wrong_element>& wrong,
                           const std::vector<char>& is_wrong) {
    for (int tile = 8; tile <= 128; tile *= 2) {
        // The first row (column) of the partial tiles; m (n) where there is
        // no partial tile after at least one whole one.
        const int row_edge = v.m > tile && v.m % tile != 0 ? v.m - v.m % tile : v.m;
        const int col_edge = v.n > tile && v.n % tile != 0 ? v.n - v.n % tile : v.n;
        if (row_edge == v.m && col_edge == v.n) continue;
        const bool all = std::all_of(wrong.begin(), wrong.end(), [&](const wrong_element& w) {
            return w.row >= row_edge || w.col >= col_edge;
        });
        if (!all) continue;
        std::size_t edge = 0, edge_wrong = 0;
        for (std::size_t r = 0; r < v.ref.rows.size(); ++r)
            for (int j = 0; j < v.n; ++j)
                if (v.ref.rows[r] >= row_edge || j >= col_edge) {
                    ++edge;
                    edge_wrong += is_wrong[r * v.n + j];
                }
        if (2 * edge_wrong < edge) continue;
        std::string where;
        if (row_edge < v.m) where = fmt::format("row {} or more", row_edge);
        if (col_edge < v.n)
            where += fmt::format("{}column {} or more", where.empty() ? "" : ", or ", col_edge);
        return fmt::format(
            "every wrong element lies at the bottom or right edge of C ({}), in the last, partial "
            "tiles; the whole tiles are right.\n"
            "The edge tiles are the problem: load zeros for the elements of A and B outside the "
            "matrices (row >= M, col >= N, k >= K) instead of reading past their ends, and store "
            "only inside C.",
            where);
    }
    return {};
}

// How far the checked elements are from the reference, over all of them.
struct error_summary {
    std::size_t checked = 0, wrong = 0;
    std::size_t computed_nan = 0;  // NaN that is not the poison: the kernel computed it
    double worst_relative = 0;     // max |c - ref| / sum of |a(i,k) b(k,j)| over the finite ones
};

// TF32's pattern: nearly every element off by a little (far below a wrong
// index's error, above float32 rounding), none by much. A few large errors,
// or errors in some tiles only, are something else.
std::string diagnose_precision(const error_summary& e) {
    const bool nearly_all_wrong = e.wrong * 10 >= e.checked * 9;
    if (!nearly_all_wrong || e.computed_nan > 0) return {};
    if (e.worst_relative == 0 || e.worst_relative > std::ldexp(1.0, -7)) return {};
    return fmt::format(
        "nearly every element is off by a little (at most {:.2g} of the sum of |a(i,k) b(k,j)|, "
        "about 2^{:.0f}), more than float32 arithmetic allows: the inputs were rounded to fewer "
        "mantissa bits. That is what TF32 tensor-core math does (10 bits instead of 23); it must "
        "stay off unless asked for: cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH).",
        e.worst_relative, std::log2(e.worst_relative));
}

// NaN that the kernel computed (not the poison of an unwritten element) from
// inputs that hold none: the NaN came from the memory around A and B (row
// padding, guards), which the test fills with NaN, so something read there.
std::string diagnose_computed_nan(const result_view& v, const error_summary& e) {
    if (e.computed_nan == 0) return {};
    const std::string where = v.by == producer::library
                                  ? "check the sizes and leading dimensions passed to the library"
                                  : "check the bounds of every index and loop, e.g. k < K, not "
                                    "k <= K, and row < M, col < N";
    return fmt::format(
        "{} checked element(s) of C hold a NaN that was computed, although A and B hold none. The "
        "test fills the memory around A and B (row padding, guards) with NaN: something read "
        "outside A or B. {}.",
        with_commas(e.computed_nan), where);
}

// No known pattern: the possible causes, for what computed C.
std::string unknown_pattern(const result_view& v) {
    switch (v.by) {
        case producer::tiled_kernel:
            return "some elements are wrong, with no pattern the test knows. Two mistakes that give "
                   "this: a race (a missing __syncthreads() after storing the tiles, or before "
                   "overwriting them; then which elements are wrong changes from run to run), or a "
                   "tile loaded wrong.";
        case producer::plain_kernel:
            return "some elements are wrong, with no pattern the test knows: check each thread's "
                   "row and column and the loop along K.";
        case producer::library:
            return "some elements are wrong, with no pattern the test knows: check the sizes, "
                   "transposes and leading dimensions passed to the library.";
    }
    return {};
}

std::string describe_output_guard(const course::testing::guard_report& g,
                                  const course::testing::layout_2d& c) {
    std::string text;
    const std::string guard =
        "threads outside C must not store: guard with if (row < M && col < N)";
    if (g.padding)
        text += fmt::format(
            "wrote outside C: {} element(s) in the padding after the ends of its rows changed, the "
            "first at row {}, column {} (C has {} columns; its rows start {} elements apart)\n{}\n",
            with_commas(g.padding), g.padding_row, g.padding_col, c.cols, c.pitch, guard);
    if (g.after)
        text += fmt::format(
            "wrote past the end of C: {} element(s) after its last row changed, the first where "
            "row {}, column {} would be\n{}\n",
            with_commas(g.after), c.rows + g.first_after / c.pitch, g.first_after % c.pitch, guard);
    if (g.before)
        text += fmt::format(
            "wrote before the start of C: {} element(s) before row 0 changed: an index went below "
            "zero\n",
            with_commas(g.before));
    if (!text.empty()) text.pop_back();
    return text;
}

// What judge_product found wrong, and whether its cause lies where no
// compute-sanitizer tool looks (explained.hpp): rounding, seen in every
// element, is arithmetic, not memory, races or barriers.
struct product_verdict {
    std::string text;  // empty when C is right
    bool beyond_the_tools = false;
};

// How many elements are wrong, the first few, and the pattern they form with
// its usual cause.
product_verdict judge_product(const result_view& v) {
    std::size_t unwritten = 0;
    for (float x : v.c) unwritten += is_poison(x);

    std::size_t checked = 0;
    std::vector<wrong_element> wrong;  // a sample, for the messages and the diagnosis
    std::size_t wrong_count = 0;
    std::vector<char> is_wrong(v.ref.rows.size() * v.n, 0);  // per checked element
    error_summary errors;
    for (std::size_t r = 0; r < v.ref.rows.size(); ++r)
        for (int j = 0; j < v.n; ++j) {
            ++checked;
            const float actual = v.c_at(v.ref.rows[r], j);
            const double magnitude = v.ref.magnitude[r * v.n + j];
            if (std::isfinite(actual) && magnitude > 0)
                errors.worst_relative = std::max(
                    errors.worst_relative, std::fabs(actual - v.ref.value[r * v.n + j]) / magnitude);
            if (v.ok(r, j, actual)) continue;
            if (std::isnan(actual) && !is_poison(actual)) ++errors.computed_nan;
            if (wrong.size() < 64)
                wrong.push_back({v.ref.rows[r], j, v.ref.value[r * v.n + j], actual,
                                 v.allowed(r, j), is_poison(actual)});
            is_wrong[r * v.n + j] = 1;
            ++wrong_count;
        }
    errors.checked = checked;
    errors.wrong = wrong_count;

    if (wrong_count > 0 || unwritten > 0) {
        std::string message =
            fmt::format("{} of {} checked elements of C are wrong{}", with_commas(wrong_count),
                        with_commas(checked),
                        unwritten ? fmt::format("; {} of all {} never written",
                                                with_commas(unwritten), with_commas(v.c.size()))
                                  : std::string{});
        for (std::size_t i = 0; i < wrong.size() && i < 3; ++i)
            message += "\n  " + describe(wrong[i]);
        std::string why;
        if (unwritten) why = diagnose_unwritten(v, unwritten);
        if (why.empty()) why = diagnose_computed_nan(v, errors);
        if (why.empty() && looks_transposed(v))
            why =
                "C holds the right numbers in the wrong places: element (i, j) of A x B sits "
                "at j * M + i, where a column-major matrix keeps it, instead of at row i, "
                "column j of our row-major C.\n"
                "cuBLAS is column-major and writes C that way unless asked otherwise: ask it "
                "for C^T = B^T A^T, which in column-major terms is our row-major C (pass B "
                "first, then A, sizes N, M, K, the pitches as leading dimensions, no transposes).";
        if (why.empty()) why = diagnose_k_tail(v, wrong);
        if (why.empty()) why = diagnose_edges(v, wrong, is_wrong);
        bool rounding = false;
        if (why.empty()) {
            why = diagnose_precision(errors);
            rounding = !why.empty();
        }
        if (why.empty()) why = unknown_pattern(v);
        return {message + "\n" + why, rounding};
    }
    return {};
}

std::vector<int> rows_to_check(int m, std::size_t sample_rows) {
    std::vector<int> rows;
    if (sample_rows == 0 || sample_rows >= static_cast<std::size_t>(m)) {
        for (int i = 0; i < m; ++i) rows.push_back(i);
        return rows;
    }
    std::set<int> chosen{0, m - 1};
    std::mt19937_64 draw(course::derive_seed(course::testing::seed(), "sampled rows"));
    while (chosen.size() < sample_rows) chosen.insert(static_cast<int>(draw() % m));
    return {chosen.begin(), chosen.end()};
}

std::string describe_shape(const product_shape& s) {
    auto pitch = [](std::size_t p, int cols) {
        return p == 0 || p == static_cast<std::size_t>(cols) ? std::string{}
                                                             : fmt::format(" (rows {} apart)", p);
    };
    return fmt::format("A {} x {}{}, B {} x {}{}, C {} x {}{}", s.m, s.k, pitch(s.pitch_a, s.k),
                       s.k, s.n, pitch(s.pitch_b, s.n), s.m, s.n, pitch(s.pitch_c, s.n));
}

}  // namespace

void check_product(const std::string& name, const multiply_fn& multiply, const product_shape& s,
                   const check_options& options) {
    SCOPED_TRACE(fmt::format("{}: {}", name, describe_shape(s)));
    host_matrix a{s.m, s.k,
                  course::random_floats(static_cast<std::size_t>(s.m) * s.k,
                                        course::derive_seed(course::testing::seed(), "a"))};
    host_matrix b{s.k, s.n, {}};
    if (options.identity_b) {
        b.values.assign(static_cast<std::size_t>(s.k) * s.n, 0.0f);
        for (int i = 0; i < std::min(s.k, s.n); ++i)
            b.values[static_cast<std::size_t>(i) * s.n + i] = 1;
    } else {
        b.values = course::random_floats(static_cast<std::size_t>(s.k) * s.n,
                                         course::derive_seed(course::testing::seed(), "b"));
    }

    // The inputs end where mapped memory ends: a read past A's last row or
    // B's last element faults (guard_paged.hpp), even when the answer is right.
    guarded_matrix<float> a_dev(s.m, s.k, s.pitch_a, after_the_matrix::unmapped, "A");
    guarded_matrix<float> b_dev(s.k, s.n, s.pitch_b, after_the_matrix::unmapped, "B");
    guarded_matrix<float> c_dev(s.m, s.n, s.pitch_c);  // poisoned: NaN everywhere
    a_dev.fill(a.values);
    b_dev.fill(b.values);

    multiply(a_dev.view(), b_dev.view(), c_dev.view());
    CUDA_CHECK(cudaDeviceSynchronize());

    const std::vector<float> c = c_dev.to_host();
    const reference_rows ref =
        compute_reference(a, b, rows_to_check(s.m, options.sample_rows), options.identity_b);
    const result_view v{a, b, c, ref, options.bound, s.m, s.n, s.k, producer_of(name)};

    if (const product_verdict verdict = judge_product(v); !verdict.text.empty()) {
        if (verdict.beyond_the_tools) course::testing::next_failure_explained_beyond_the_tools();
        ADD_FAILURE() << verdict.text;
    }

    const auto guard = c_dev.guard_writes();
    if (!guard.clean()) ADD_FAILURE() << describe_output_guard(guard, c_dev.layout());
    course::testing::expect_unchanged(a_dev, a.values, "A");
    course::testing::expect_unchanged(b_dev, b.values, "B");
}

void check_version(version v, const product_shape& shape, const check_options& options) {
    if (hand_written(v)) {
        const std::string use = library_gemm_use(source_of(v));
        if (!use.empty()) {
            // Read from what was linked: no tool's rerun looks there.
            course::testing::next_failure_explained_beyond_the_tools();
            ADD_FAILURE() << use;
            return;
        }
    }
    check_product(
        name_of(v), [v](const_matrix a, const_matrix b, matrix c) { run(v, a, b, c); }, shape,
        options);
}

}  // namespace lesson07::testing
