// The teaching messages, checked on synthetic results: each common mistake
// must be named by the pattern it leaves in a poisoned output.
#include <gtest/gtest.h>

#include <limits>

#include "course/testing/expect.hpp"

namespace {
using course::testing::diagnose_1d;
using course::testing::launch_1d;
const float not_a_number = std::numeric_limits<float>::quiet_NaN();

// Expected values 0..n-1; `written(i)` says which elements the mistaken kernel wrote.
template <class Written>
std::string diagnose(std::size_t n, unsigned threads, Written written) {
    std::vector<float> actual(n, not_a_number);
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        expected[i] = static_cast<double>(i);
        if (written(i)) actual[i] = static_cast<float>(i);
    }
    return diagnose_1d(course::compare(actual, expected, {}), actual, launch_1d{threads});
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}
}  // namespace

TEST(Diagnose, GridRoundedDown) {
    const auto why = diagnose(1025, 256, [](std::size_t i) { return i < 1024; });
    EXPECT_TRUE(contains(why, "last, partial block did not run")) << why;
    EXPECT_TRUE(contains(why, "5 blocks of 256")) << why;
}

TEST(Diagnose, BlockIndexIgnored) {
    const auto why = diagnose(1000, 128, [](std::size_t i) { return i < 128; });
    EXPECT_TRUE(contains(why, "ignores blockIdx.x")) << why;
}

TEST(Diagnose, BlockIndexNotScaled) {
    // i = blockIdx.x + threadIdx.x reaches at most blocks + threads - 2.
    const std::size_t blocks = (1000 + 127) / 128;
    const auto why = diagnose(1000, 128, [&](std::size_t i) { return i < blocks + 127; });
    EXPECT_TRUE(contains(why, "multiply the block index")) << why;
}

TEST(Diagnose, AmbiguousFirstBlockNamesBothCauses) {
    // 129 elements, 128 threads: 128 right could be either mistake.
    const auto why = diagnose(129, 128, [](std::size_t i) { return i < 128; });
    EXPECT_TRUE(contains(why, "last, partial block did not run")) << why;
    EXPECT_TRUE(contains(why, "ignores blockIdx.x")) << why;
}

TEST(Diagnose, PackTailOnly) {
    // A float4 loop with no code for the rest: the last n % 4 = 3 missing, not a block.
    const std::size_t n = (std::size_t{1} << 20) + 11;
    const auto why = diagnose(n, 256, [&](std::size_t i) { return i < n - 3; });
    EXPECT_TRUE(contains(why, "packs of four")) << why;
    EXPECT_TRUE(contains(why, "n % 4 = 3")) << why;
    EXPECT_FALSE(contains(why, "partial block")) << why;
    EXPECT_FALSE(contains(why, "launched")) << why;
}

TEST(Diagnose, PackTailThatIsAlsoAPartialBlockNamesBoth) {
    // 129 = 128 + 1: one element missing is a grid rounded down, blockIdx
    // ignored or a float4 loop's tail alike.
    const auto why = diagnose(129, 128, [](std::size_t i) { return i < 128; });
    EXPECT_TRUE(contains(why, "only the first 128 elements were written")) << why;
    EXPECT_TRUE(contains(why, "last, partial block did not run")) << why;
    EXPECT_TRUE(contains(why, "ignores blockIdx.x")) << why;
    EXPECT_TRUE(contains(why, "packs of four")) << why;
}

TEST(Diagnose, GridRoundedDownLeavesMoreThanATail) {
    const auto why = diagnose(1023, 256, [](std::size_t i) { return i < 768; });
    EXPECT_TRUE(contains(why, "last, partial block did not run")) << why;
    EXPECT_FALSE(contains(why, "packs of four")) << why;
}

TEST(Diagnose, NothingWrittenBelowFourNamesThePackLoopToo) {
    const auto why = diagnose(1, 256, [](std::size_t) { return false; });
    EXPECT_TRUE(contains(why, "no element was written")) << why;
    EXPECT_TRUE(contains(why, "packs of four")) << why;
}

TEST(Diagnose, NothingWritten) {
    const auto why = diagnose(64, 32, [](std::size_t) { return false; });
    EXPECT_TRUE(contains(why, "no element was written")) << why;
    EXPECT_FALSE(contains(why, "packs of four")) << why;
}

TEST(Diagnose, WrongValuesNotMissing) {
    std::vector<float> actual{0, 2, 4};
    std::vector<double> expected{0, 1, 2};
    const auto why = diagnose_1d(course::compare(actual, expected, {}), actual, launch_1d{32});
    EXPECT_TRUE(contains(why, "every element was written, but some values are wrong")) << why;
}

TEST(Diagnose, RightResultNeedsNoDiagnosis) {
    EXPECT_EQ(diagnose(100, 32, [](std::size_t) { return true; }), "");
}

TEST(Diagnose, DescribesAMismatch) {
    EXPECT_EQ(course::testing::describe_mismatch({128, 1.2431, not_a_number}),
              "element 128: expected 1.2431, got NaN (never written)");
    EXPECT_EQ(course::testing::describe_mismatch({16777216, 2.0, 3.0}),
              "element 16,777,216: expected 2, got 3");
}

TEST(Diagnose, NamesTheKnownWrongResultTheOutputEquals) {
    const std::vector<float> actual{3, 5, 7};
    const std::vector<course::testing::known_wrong_result> known{
        {"a*y + x", {3, 5, 7}, "x and y swapped"}, {"x", {1, 1, 1}, "x copied through"}};
    const auto why = course::testing::diagnose_known_wrong(actual, known, {}, "a*x + y");
    EXPECT_EQ(why, "every element equals a*y + x instead of a*x + y: x and y swapped");
}

TEST(Diagnose, KnownWrongResultsTheInputsCannotTellApartNameNoCause) {
    const std::vector<float> actual{2, 2};
    const std::vector<course::testing::known_wrong_result> known{{"a*y + x", {2, 2}, "swapped"},
                                                                 {"a*x", {2, 2}, "y missing"}};
    const auto why = course::testing::diagnose_known_wrong(actual, known, {}, "a*x + y");
    EXPECT_TRUE(contains(why, "a*y + x and a*x")) << why;
    EXPECT_FALSE(contains(why, "swapped")) << why;
}

TEST(Diagnose, NoKnownWrongResultWhenOneElementDiffers) {
    const std::vector<float> actual{3, 5, 8};
    const std::vector<course::testing::known_wrong_result> known{{"a*y + x", {3, 5, 7}, "swapped"}};
    EXPECT_EQ(course::testing::diagnose_known_wrong(actual, known, {}, "a*x + y"), "");
}
