#include <gtest/gtest.h>

#include <type_traits>

#include "course/device_span.hpp"
#include "course/launch.hpp"

TEST(Launch, BlocksForRoundsUp) {
    EXPECT_EQ(course::blocks_for(0, 128), 0u);
    EXPECT_EQ(course::blocks_for(1, 128), 1u);
    EXPECT_EQ(course::blocks_for(128, 128), 1u);
    EXPECT_EQ(course::blocks_for(129, 128), 2u);
    EXPECT_EQ(course::blocks_for((1u << 24) + 11, 256), 65537u);
    static_assert(course::blocks_for(1025, 1024) == 2);
}

TEST(DeviceSpan, ViewsWithoutOwning) {
    float storage[8] = {};
    course::device_span<float> s(storage, 8);
    EXPECT_EQ(s.size(), 8u);
    EXPECT_EQ(s.size_bytes(), 32u);
    EXPECT_FALSE(s.empty());
    EXPECT_EQ(s.first(3).size(), 3u);
    EXPECT_EQ(s.subspan(2, 4).data(), storage + 2);
    EXPECT_TRUE(course::device_span<float>().empty());
}

TEST(DeviceSpan, MutableConvertsToConstOnly) {
    static_assert(std::is_convertible_v<course::device_span<float>, course::device_span<const float>>);
    static_assert(!std::is_convertible_v<course::device_span<const float>, course::device_span<float>>);
    static_assert(std::is_trivially_copyable_v<course::device_span<float>>,
                  "kernels take spans by value");
}
