#include <gtest/gtest.h>

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
