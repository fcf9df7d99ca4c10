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
}
