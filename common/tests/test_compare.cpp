#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "course/compare.hpp"

namespace {
const float not_a_number = std::numeric_limits<float>::quiet_NaN();
}

TEST(Compare, AllRight) {
    std::vector<float> actual{1.0f, 2.0f, 3.0f};
    std::vector<double> expected{1.0, 2.0, 3.0};
    const auto c = course::compare(actual, expected, {});
    EXPECT_TRUE(c.ok());
    EXPECT_EQ(c.first_wrong, 3u);
    EXPECT_EQ(c.summary(), "all 3 right");
}

TEST(Compare, CountsWrongAndNaN) {
    std::vector<float> actual{1.0f, not_a_number, 3.5f, not_a_number};
    std::vector<double> expected{1.0, 2.0, 3.0, 4.0};
    const auto c = course::compare(actual, expected, {1e-6, 0});
    EXPECT_EQ(c.wrong, 3u);
    EXPECT_EQ(c.nan, 2u);
    EXPECT_EQ(c.first_wrong, 1u);
    EXPECT_EQ(c.last_wrong, 3u);
    ASSERT_EQ(c.examples.size(), 3u);
    EXPECT_EQ(c.examples[1].index, 2u);
    EXPECT_DOUBLE_EQ(c.examples[1].actual, 3.5);
    EXPECT_NEAR(c.max_abs_error, 0.5, 1e-12);
    EXPECT_EQ(c.summary(), "1 of 4 right; first wrong at 1");
}

TEST(Compare, ToleranceIsRelativeAndAbsolute) {
    EXPECT_TRUE(course::within(1.0 + 1e-7, 1.0, {1e-6, 0}));
    EXPECT_FALSE(course::within(1.0 + 1e-5, 1.0, {1e-6, 0}));
    EXPECT_TRUE(course::within(1e-9, 0.0, {1e-6, 1e-8}));
    EXPECT_FALSE(course::within(1e-9, 0.0, {1e-6, 0}));
    EXPECT_TRUE(course::within(std::nan(""), std::nan(""), {}));
    EXPECT_FALSE(course::within(std::nan(""), 1.0, {1.0, 1.0}));
}

TEST(Compare, KeepsOnlyTheFirstExamples) {
    std::vector<float> actual(100, 0.0f);
    std::vector<double> expected(100, 1.0);
    const auto c = course::compare(actual, expected, {}, 5);
    EXPECT_EQ(c.wrong, 100u);
    EXPECT_EQ(c.examples.size(), 5u);
}

TEST(Compare, AShortResultIsWrongWhereItEnds) {
    const std::vector<float> actual{1, 2};
    const auto c = course::compare(actual, std::vector<double>{1, 2, 3, 4}, {1e-6, 0});
    EXPECT_FALSE(c.ok());
    EXPECT_EQ(c.wrong, 2u);
    EXPECT_EQ(c.nan, 2u);  // never written
    EXPECT_EQ(c.first_wrong, 2u);
    EXPECT_TRUE(course::compare(std::vector<float>{}, std::vector<double>{1}, {1e-6, 0}).wrong == 1);
}

TEST(Compare, ALongResultIsWrongPastTheEnd) {
    const auto c = course::compare(std::vector<float>{1, 2, 3}, std::vector<double>{1, 2}, {1e-6, 0});
    EXPECT_EQ(c.wrong, 1u);
    EXPECT_EQ(c.first_wrong, 2u);
}

TEST(Compare, WithCommas) {
    EXPECT_EQ(course::with_commas(0), "0");
    EXPECT_EQ(course::with_commas(999), "999");
    EXPECT_EQ(course::with_commas(1000), "1,000");
    EXPECT_EQ(course::with_commas(16777227), "16,777,227");
    EXPECT_EQ(course::with_commas(100000), "100,000");
    EXPECT_EQ(course::with_commas(18446744073709551615ull), "18,446,744,073,709,551,615");
}

// A large result is compared in pieces on every core: the answer is the
// same as one pass in order would give (the first examples, the first and
// last wrong index, the counts and the largest errors).
TEST(Compare, ALargeResultComparedInPiecesGivesTheSameAnswerAsOnePass) {
    const std::size_t n = std::size_t{1} << 22;
    std::vector<float> actual(n, 1.0f);
    const std::vector<double> expected(n, 1.0);
    for (const std::size_t i : {std::size_t{5}, n / 3, n / 3 + 1, n / 2, n - 1}) actual[i] = 2.0f;
    actual[n / 2 + 7] = not_a_number;
    actual[n / 4] = 1.25f;  // wrong by 0.25, less than the 2.0s
    if (course::detail::pieces_for(n) < 2) GTEST_SKIP() << "one core here: a comparison is one piece";
    const auto c = course::compare(actual, expected, {1e-6, 0}, 3);
    const auto one_pass = course::detail::compare_piece(actual.data(), expected.data(), n, 0, n, {1e-6, 0}, 3);
    EXPECT_EQ(c.count, n);
    EXPECT_EQ(c.wrong, 7u);
    EXPECT_EQ(c.nan, 1u);
    EXPECT_EQ(c.first_wrong, 5u);
    EXPECT_EQ(c.last_wrong, n - 1);
    EXPECT_DOUBLE_EQ(c.max_abs_error, 1.0);
    EXPECT_DOUBLE_EQ(c.max_rel_error, 1.0);
    ASSERT_EQ(c.examples.size(), 3u);
    EXPECT_EQ(c.examples[0].index, 5u);
    EXPECT_EQ(c.examples[1].index, n / 4);
    EXPECT_EQ(c.examples[2].index, n / 3);
    EXPECT_EQ(c.wrong, one_pass.wrong);
    EXPECT_EQ(c.last_wrong, one_pass.last_wrong);
    EXPECT_EQ(c.max_rel_error, one_pass.max_rel_error);
}
