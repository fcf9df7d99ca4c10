#pragma once
// Comparing a GPU result with a float64 reference computed on the host. The
// result is more than a yes/no: how many elements are wrong, where the first
// ones are, whether they are NaN (never written, when outputs are poisoned),
// and the longest right prefix, which is what the graders read patterns from.
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace course {

// |actual - expected| <= abs + rel * |expected|
struct tolerance {
    double rel = 1e-6;
    double abs = 0.0;
};

struct mismatch {
    std::size_t index;
    double expected;
    double actual;
};

struct comparison {
    std::size_t count = 0;       // elements compared
    std::size_t wrong = 0;       // outside the tolerance (NaN included)
    std::size_t nan = 0;         // actual is NaN where a number was expected
    std::size_t first_wrong = 0; // == count when none is wrong
    std::size_t last_wrong = 0;
    double max_abs_error = 0, max_rel_error = 0;  // over the finite elements
    std::vector<mismatch> examples;               // the first few wrong elements

    bool ok() const { return wrong == 0; }
    std::string summary() const;  // "16,777,216 of 16,777,227 right; first wrong at 16,777,216"
};

inline bool within(double actual, double expected, tolerance tol) {
    if (std::isnan(expected)) return std::isnan(actual);
    if (std::isinf(expected)) return actual == expected;
    return std::fabs(actual - expected) <= tol.abs + tol.rel * std::fabs(expected);
}

namespace detail {

// One piece of a comparison: elements [first, end) of `count`.
template <class T>
comparison compare_piece(const T* actual, const double* expected, std::size_t count, std::size_t first,
                         std::size_t end, tolerance tol, std::size_t keep_examples) {
    comparison c;
    c.count = count;
    c.first_wrong = count;
    for (std::size_t i = first; i < end; ++i) {
        const double a = static_cast<double>(actual[i]);
        const double e = expected[i];
        if (std::isfinite(a) && std::isfinite(e)) {
            const double err = std::fabs(a - e);
            c.max_abs_error = std::fmax(c.max_abs_error, err);
            if (e != 0) c.max_rel_error = std::fmax(c.max_rel_error, err / std::fabs(e));
        }
        if (within(a, e, tol)) continue;
        if (std::isnan(a)) ++c.nan;
        if (c.wrong == 0) c.first_wrong = i;
        c.last_wrong = i;
        if (c.examples.size() < keep_examples) c.examples.push_back({i, e, a});
        ++c.wrong;
    }
    return c;
}

// How many pieces a comparison of `count` elements is cut into: one per core
// for a large result, else one.
std::size_t pieces_for(std::size_t count);
// Runs compare_one(piece, first, end) for each piece of [0, count), each
// piece on its own thread (run_parts, cpus.hpp).
void compare_pieces(std::size_t count, std::size_t pieces,
                    const std::function<void(std::size_t, std::size_t, std::size_t)>& compare_one);
// The pieces' findings as one comparison of `count` elements, in order.
comparison merged(const std::vector<comparison>& pieces, std::size_t count, std::size_t keep_examples);

}  // namespace detail

// Compares element by element. 2^24 elements take one core about 150 ms, so
// a large result is cut into pieces compared on every core at once; the
// answer does not depend on how many there were.
template <class T>
comparison compare(const T* actual, const double* expected, std::size_t count, tolerance tol,
                   std::size_t keep_examples = 5) {
    const std::size_t pieces = detail::pieces_for(count);
    if (pieces <= 1) return detail::compare_piece(actual, expected, count, 0, count, tol, keep_examples);
    std::vector<comparison> found(pieces);
    detail::compare_pieces(count, pieces, [&](std::size_t piece, std::size_t first, std::size_t end) {
        found[piece] = detail::compare_piece(actual, expected, count, first, end, tol, keep_examples);
    });
    return detail::merged(found, count, keep_examples);
}

// A result of the wrong length is wrong where it differs: an element it lacks
// counts as never written (NaN), an element past the expected end as wrong.
// (A graded test's results can come from anywhere: evidence.hpp.)
template <class T>
comparison compare(const std::vector<T>& actual, const std::vector<double>& expected, tolerance tol,
                   std::size_t keep_examples = 5) {
    if (actual.size() == expected.size())
        return compare(actual.data(), expected.data(), actual.size(), tol, keep_examples);
    std::vector<double> padded(expected.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < padded.size() && i < actual.size(); ++i) padded[i] = static_cast<double>(actual[i]);
    comparison c = compare(padded.data(), expected.data(), expected.size(), tol, keep_examples);
    if (actual.size() > expected.size()) {
        if (c.wrong == 0) c.first_wrong = expected.size();
        c.wrong += actual.size() - expected.size();
        c.last_wrong = actual.size() - 1;
    }
    return c;
}

// 16777216 -> "16,777,216": big indices are read, not counted.
std::string with_commas(std::size_t value);

}  // namespace course
