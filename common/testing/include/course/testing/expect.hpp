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

// "element 128: expected 1.2431, got NaN (never written)"
std::string describe_mismatch(const mismatch& m);

void expect_matches(const guarded_output<float>& output, const std::vector<double>& expected,
                    tolerance tol, launch_1d launch);
void expect_guard_untouched(const guarded_output<float>& output);
void expect_unchanged(const test_input<float>& input);

}  // namespace course::testing
