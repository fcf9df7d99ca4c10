#include <gtest/gtest.h>

#include <algorithm>

#include "course/random.hpp"

TEST(Random, SameSeedSameNumbers) {
    EXPECT_EQ(course::random_floats(1000, 42), course::random_floats(1000, 42));
    EXPECT_NE(course::random_floats(1000, 42), course::random_floats(1000, 43));
}

TEST(Random, StaysInRange) {
    for (float x : course::random_floats(10000, 7, -2.0f, 3.0f)) {
        EXPECT_GE(x, -2.0f);
        EXPECT_LE(x, 3.0f);
    }
}

TEST(Random, DerivedSeedsDifferByName) {
    EXPECT_EQ(course::derive_seed(1, "VecAdd.Large"), course::derive_seed(1, "VecAdd.Large"));
    EXPECT_NE(course::derive_seed(1, "VecAdd.Large"), course::derive_seed(1, "VecAdd.Small"));
    EXPECT_NE(course::derive_seed(1, "VecAdd.Large"), course::derive_seed(2, "VecAdd.Large"));
}

TEST(Random, ALargeDrawStartsWithTheSmallOne) {
    // Drawn in runs of 2^16 by several threads, a large input must still be
    // one sequence: its first numbers are those of a small draw.
    const auto large = course::random_floats((std::size_t{1} << 20) + 11, 42);
    const auto small = course::random_floats(100000, 42);
    EXPECT_TRUE(std::equal(small.begin(), small.end(), large.begin()));
    EXPECT_EQ(large, course::random_floats((std::size_t{1} << 20) + 11, 42));
}
