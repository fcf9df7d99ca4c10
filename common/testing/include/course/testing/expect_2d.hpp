#pragma once
// Assertions for 2D kernels whose failure messages teach: what was expected,
// what came, at which (row, col), and the mistake that usually leaves that
// pattern (rows and columns swapped, only the first row of blocks, the last
// partial row or column of blocks missing, a linear index built with the
// block's width, the pitch ignored, ...).
//
// The diagnosis replays each known mistake on the host: it works out which
// elements a kernel with that mistake would write, for this matrix and this
// block shape, and names every mistake whose pattern matches what the GPU
// actually left behind.
//
// What they read back of a guarded_matrix is evidence (evidence.hpp): the
// matrix's to_host(), guard_writes() and first_difference() observe it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/testing/buffers_2d.hpp"

namespace course::testing {

// The block shape a 2D result was launched with (block.x along the columns,
// block.y along the rows), so a failure can be read in terms of blocks.
struct launch_2d {
    unsigned block_x = 16;
    unsigned block_y = 16;
};

// What became of one element, as far as the test can tell.
enum class touch : std::uint8_t {
    unwritten,  // still the poison (out of place) or its original value (in place)
    right,      // the expected value
    twice,      // in place: the update applied twice
    wrong,      // any other value
};

// Out of place writes a poisoned output once; in place updates each element
// of its input, so an element updated twice shows.
enum class update_kind { out_of_place, in_place };

// The teaching part of a 2D mismatch: the mistakes whose pattern matches
// `touches` (rows x cols, row-major). Empty when everything is right or no
// known pattern fits. `verb` names the update in place ("doubled").
std::string diagnose_2d(const std::vector<touch>& touches, const layout_2d& layout,
                        launch_2d launch, update_kind kind, const std::string& verb = "updated");

// "wrote into the padding after row 3 ..." with the usual cause; empty when clean.
std::string describe_guard_writes(const guard_report& report, const layout_2d& layout);

// out(r, c) must match expected[r * cols + c]; `out` was poisoned before the call.
void expect_matches_2d(const guarded_matrix<float>& out, const std::vector<double>& expected,
                       tolerance tol, launch_2d launch);

// What an in-place kernel does to one element, and its name for messages.
struct in_place_update {
    std::function<double(double)> apply;
    std::string verb;  // "doubled"
};

// Each element a(r, c) must now be update(original[r * cols + c]): updated
// once, neither skipped nor updated twice.
void expect_updated_in_place(const guarded_matrix<float>& a, const std::vector<float>& original,
                             const in_place_update& update, tolerance tol, launch_2d launch);
// The same for a result already copied to the host (rows x cols, dense) from
// a matrix laid out as `layout` on the device.
void expect_updated_in_place(const std::vector<float>& actual, const layout_2d& layout,
                             const std::vector<float>& original, const in_place_update& update,
                             tolerance tol, launch_2d launch);

// Nothing outside the matrix (guards, padding) was written.
void expect_guard_untouched(const guarded_matrix<float>& matrix);

// An input matrix still holds `values` (rows x cols, dense).
void expect_unchanged(const guarded_matrix<float>& input, const std::vector<float>& values,
                      const std::string& name);

}  // namespace course::testing
