// The 2D teaching messages, checked on synthetic results: each common 2D
// mistake must be named by the pattern it leaves in a poisoned output (or in
// a matrix updated in place). The patterns are written out by hand here, from
// what the mistaken kernel does, not taken from the diagnosis's own models.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "course/testing/expect_2d.hpp"

namespace {
using course::testing::diagnose_2d;
using course::testing::guard_report;
using course::testing::launch_2d;
using course::testing::layout_2d;
using course::testing::touch;
using course::testing::update_kind;

// A touch map for rows x cols from `what(row, col)`.
template <class What>
std::vector<touch> touches(std::size_t rows, std::size_t cols, What what) {
    std::vector<touch> t(rows * cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) t[r * cols + c] = what(r, c);
    return t;
}

// Out of place: written elements are right, the others never written.
template <class Written>
std::string out_of_place(layout_2d m, launch_2d l, Written written) {
    const auto t = touches(m.rows, m.cols, [&](std::size_t r, std::size_t c) {
        return written(r, c) ? touch::right : touch::unwritten;
    });
    return diagnose_2d(t, m, l, update_kind::out_of_place);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}
}  // namespace

TEST(Diagnose2d, RowsAndColumnsSwapped) {
    // row = blockIdx.x * 32 + threadIdx.x covers 512 >= 300 rows, but
    // col = blockIdx.y * 8 + threadIdx.y only reaches 38 * 8 = 304 columns.
    const auto why = out_of_place({300, 500, 500}, {32, 8}, [](auto, auto c) { return c < 304; });
    EXPECT_TRUE(contains(why, "rows and columns swapped")) << why;
    EXPECT_FALSE(contains(why, "one of these")) << why;
}

TEST(Diagnose2d, OnlyTheFirstRowOfBlocks) {
    const auto why = out_of_place({100, 50, 50}, {16, 16}, [](auto r, auto) { return r < 16; });
    EXPECT_TRUE(contains(why, "only the first row of blocks")) << why;
    EXPECT_TRUE(contains(why, "ignores blockIdx.y")) << why;
}

TEST(Diagnose2d, LastPartialRowOfBlocksMissing) {
    const auto why = out_of_place({100, 50, 50}, {16, 16}, [](auto r, auto) { return r < 96; });
    EXPECT_TRUE(contains(why, "last, partial row of blocks did not run")) << why;
    EXPECT_TRUE(contains(why, "100 rows need 7 rows of blocks")) << why;
}

TEST(Diagnose2d, LastPartialColumnOfBlocksMissing) {
    const auto why = out_of_place({50, 100, 100}, {16, 16}, [](auto, auto c) { return c < 96; });
    EXPECT_TRUE(contains(why, "last, partial column of blocks did not run")) << why;
}

TEST(Diagnose2d, BothPartialEdgesMissing) {
    const auto why =
        out_of_place({50, 100, 100}, {16, 16}, [](auto r, auto c) { return r < 48 && c < 96; });
    EXPECT_TRUE(contains(why, "last, partial row and column of blocks")) << why;
}

TEST(Diagnose2d, LinearIndexWithTheBlockWidth) {
    // i = row * 16 + col for row < 20, col < 40 reaches every i below
    // 19 * 16 + 40 = 344 and no other.
    const auto why = out_of_place({20, 40, 40}, {16, 16},
                                  [](auto r, auto c) { return r * 40 + c < 344; });
    EXPECT_TRUE(contains(why, "uses the block's width instead of the matrix's")) << why;
}

TEST(Diagnose2d, LinearIndexWithTheBlockWidthInPlace) {
    // In place, an element at i is doubled once for every row r with
    // 16 r <= i < 16 r + 40: up to three times.
    const layout_2d m{20, 40, 40};
    const auto t = touches(m.rows, m.cols, [](std::size_t r, std::size_t c) {
        const std::size_t i = r * 40 + c;
        int times = 0;
        for (std::size_t k = 0; k < 20; ++k) times += 16 * k <= i && i < 16 * k + 40;
        return times == 0 ? touch::unwritten : times == 1 ? touch::right
                                           : times == 2   ? touch::twice
                                                          : touch::wrong;
    });
    const auto why = diagnose_2d(t, m, {16, 16}, update_kind::in_place, "doubled");
    EXPECT_TRUE(contains(why, "uses the block's width")) << why;
}

TEST(Diagnose2d, PitchIgnored) {
    // Rows 40 apart, indexed as if 33 apart: the stores cover offsets below
    // 10 * 33 = 330, which hold elements r * 40 + c < 330.
    const auto why = out_of_place({10, 33, 40}, {32, 8},
                                  [](auto r, auto c) { return r * 40 + c < 330; });
    EXPECT_TRUE(contains(why, "the pitch is ignored")) << why;
    EXPECT_TRUE(contains(why, "start 40 elements apart, not 33")) << why;
}

TEST(Diagnose2d, AmbiguousPatternNamesEveryFit) {
    // 17 x 33 with 32 x 8 blocks: only column 32 missing fits three mistakes.
    const auto why = out_of_place({17, 33, 33}, {32, 8}, [](auto, auto c) { return c < 32; });
    EXPECT_TRUE(contains(why, "one of these mistakes")) << why;
    EXPECT_TRUE(contains(why, "rows and columns swapped in the grid")) << why;
    EXPECT_TRUE(contains(why, "last, partial column of blocks")) << why;
}

TEST(Diagnose2d, MissingColumnCheckSpillsIntoTheNextRow) {
    // 10 x 20 dense, 16 x 16 blocks: threads 20..31 of each row double
    // columns 0..11 of the next row a second time.
    const layout_2d m{10, 20, 20};
    const auto t = touches(m.rows, m.cols, [](std::size_t r, std::size_t c) {
        return r >= 1 && c < 12 ? touch::twice : touch::right;
    });
    const auto why = diagnose_2d(t, m, {16, 16}, update_kind::in_place, "doubled");
    EXPECT_TRUE(contains(why, "stored into the next row")) << why;
}

TEST(Diagnose2d, NothingUpdatedInPlace) {
    const layout_2d m{8, 8, 8};
    const auto t = touches(8, 8, [](auto, auto) { return touch::unwritten; });
    const auto why = diagnose_2d(t, m, {4, 4}, update_kind::in_place, "doubled");
    EXPECT_TRUE(contains(why, "no element was doubled")) << why;
}

TEST(Diagnose2d, WrongValuesEverywhere) {
    const layout_2d m{8, 8, 8};
    const auto t = touches(8, 8, [](auto, auto) { return touch::wrong; });
    const auto why = diagnose_2d(t, m, {4, 4}, update_kind::out_of_place);
    EXPECT_TRUE(contains(why, "every element was written, but some values are wrong")) << why;
}

TEST(Diagnose2d, DoubledTwiceWithoutAKnownCause) {
    const layout_2d m{8, 8, 8};
    const auto t = touches(8, 8, [](auto r, auto c) { return r == 3 && c == 3 ? touch::twice : touch::right; });
    const auto why = diagnose_2d(t, m, {4, 4}, update_kind::in_place, "doubled");
    EXPECT_TRUE(contains(why, "1 element(s) were doubled twice")) << why;
}

TEST(Diagnose2d, UnwrittenRowsWithoutAKnownCause) {
    const auto why = out_of_place({100, 50, 50}, {16, 16}, [](auto r, auto) { return r < 50; });
    EXPECT_TRUE(contains(why, "rows from 50 on were never written")) << why;
}

TEST(Diagnose2d, RightResultNeedsNoDiagnosis) {
    EXPECT_EQ(out_of_place({17, 33, 40}, {32, 8}, [](auto, auto) { return true; }), "");
}

TEST(Diagnose2d, DescribesPaddingWrites) {
    guard_report g;
    g.padding = 3;
    g.padding_row = 2;
    g.padding_col = 33;
    const auto text = course::testing::describe_guard_writes(g, {10, 33, 40});
    EXPECT_TRUE(contains(text, "in the padding")) << text;
    EXPECT_TRUE(contains(text, "row 2, column 33")) << text;
    EXPECT_TRUE(contains(text, "col < a.cols()")) << text;
}

TEST(Diagnose2d, DescribesWritesPastTheEnd) {
    guard_report g;
    g.after = 5;
    g.first_after = 0;
    const auto text = course::testing::describe_guard_writes(g, {10, 20, 20});
    EXPECT_TRUE(contains(text, "wrote past the end")) << text;
    EXPECT_TRUE(contains(text, "immediately after it (where row 10, column 0 would be)")) << text;
    EXPECT_EQ(course::testing::describe_guard_writes(guard_report{}, {10, 20, 20}), "");
}
