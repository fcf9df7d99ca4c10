#pragma once
// Assertions whose failure messages teach: what was expected, what came,
// where, and the mistake that usually produces that pattern.
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/testing/buffers.hpp"

namespace course::testing {

// How a 1D result was launched, so a failure can be read in terms of blocks.
struct launch_1d {
    unsigned threads_per_block;
};

// The teaching part of a 1D mismatch: which pattern the wrong elements form
// and its usual cause. Empty when no known pattern fits.
std::string diagnose_1d(const comparison& result, const std::vector<float>& actual,
                        launch_1d launch);

// A wrong result that a known mistake computes: its formula, its values and
// the mistake it points to ("a*y + x", ..., "x and y reached the kernel
// swapped: ...").
struct known_wrong_result {
    std::string formula;
    std::vector<double> values;
    std::string likely_cause;
};

// When every element of `actual` equals one of `known` (within `tol`), says
// so: "every element equals a*y + x instead of a*x + y: <likely cause>". When
// several fit, these inputs cannot tell them apart, and no cause is named.
// Empty when none fits.
std::string diagnose_known_wrong(const std::vector<float>& actual,
                                 const std::vector<known_wrong_result>& known, tolerance tol,
                                 const std::string& right_formula);

// "element 128: expected 1.2431, got NaN (never written)"
std::string describe_mismatch(const mismatch& m);

// `known_wrong`: results of known mistakes, named when the output equals one
// (see diagnose_known_wrong; `right_formula` names the expected one).
void expect_matches(const guarded_output<float>& output, const std::vector<double>& expected,
                    tolerance tol, launch_1d launch, const std::vector<known_wrong_result>& known_wrong = {},
                    const std::string& right_formula = {});
void expect_guard_untouched(const guarded_output<float>& output);
void expect_unchanged(const test_input<float>& input);

}  // namespace course::testing
