// Where the judge's replay puts each address a timed call used
// (course/testing/replay_addresses.hpp), on made-up placements.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "course/testing/replay_addresses.hpp"

namespace {

using course::testing::placed_array;
using course::testing::recorded_address;
using course::testing::recorded_op;
using course::testing::replay_addresses;

// The student's a, b, c at 0x1000, 0x2000, 0x3000 (256 bytes each); the judge's at 0x9000, 0xa000, 0xb000.
replay_addresses three_arrays() {
    return {{{0x1000, 256}, {0x2000, 256}, {0x3000, 256}}, {{0x9000, 256}, {0xa000, 256}, {0xb000, 256}}};
}

// Scratch of the judge's own at 0x70000 + 0x1000 per allocation, counted.
struct scratch_memory {
    std::map<std::uint64_t, std::uint64_t> made;  // student's base -> judge's address
    std::uint64_t operator()(std::uint64_t base, std::uint64_t) {
        auto [it, fresh] = made.emplace(base, 0x70000 + 0x1000 * made.size());
        return it->second;
    }
};

std::uint64_t word(const std::vector<std::uint8_t>& bytes, std::size_t at) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data() + at, 8);
    return value;
}

}  // namespace

TEST(ReplayAddresses, TheTestsArraysGoToTheJudgesCopiesAtTheSameOffset) {
    const auto addresses = three_arrays();
    scratch_memory scratch;
    auto to = [&](std::uint64_t value) {
        return addresses.translate({value, 0x1000, 256}, std::ref(scratch));
    };
    EXPECT_EQ(to(0x1000), 0x9000u);
    EXPECT_EQ(to(0x2010), 0xa010u);
    EXPECT_EQ(to(0x3100), 0xb100u);  // one past c's end: an end pointer
    EXPECT_TRUE(scratch.made.empty());
}

TEST(ReplayAddresses, OtherDeviceMemoryGetsTheJudgesOwnOnePerAllocation) {
    const auto addresses = three_arrays();
    scratch_memory scratch;
    // Two pointers into one allocation of the student's, one into another.
    EXPECT_EQ(addresses.translate({0x50010, 0x50000, 4096}, std::ref(scratch)), 0x70010u);
    EXPECT_EQ(addresses.translate({0x50800, 0x50000, 4096}, std::ref(scratch)), 0x70800u);
    EXPECT_EQ(addresses.translate({0x60000, 0x60000, 64}, std::ref(scratch)), 0x71000u);
    EXPECT_EQ(scratch.made.size(), 2u);
}

TEST(ReplayAddresses, WhatIsNotDeviceMemoryIsLeftAsItIs) {
    const auto addresses = three_arrays();
    scratch_memory scratch;
    EXPECT_FALSE(addresses.translate({42, 0, 0}, std::ref(scratch)));        // a number
    EXPECT_FALSE(addresses.translate({0, 0, 0}, std::ref(scratch)));         // a null
    EXPECT_FALSE(addresses.translate({0x7fff0000, 0, 0}, std::ref(scratch)));  // a host pointer
}

TEST(ReplayAddresses, ALaunchsPointersAreMovedAndItsOtherBytesKept) {
    // vecadd(a, b, c) with spans {pointer, size}: 48 bytes of arguments.
    recorded_op launch;
    launch.args.resize(48);
    const std::uint64_t words[] = {0x1000, 64, 0x2000, 64, 0x3000, 64};
    std::memcpy(launch.args.data(), words, sizeof words);
    launch.pointers = {{0, {0x1000, 0x1000, 256}}, {16, {0x2000, 0x2000, 256}}, {32, {0x3000, 0x3000, 256}}};
    scratch_memory scratch;
    const auto args = course::testing::translated_arguments(launch, three_arrays(), std::ref(scratch));
    ASSERT_EQ(args.size(), 48u);
    EXPECT_EQ(word(args, 0), 0x9000u);
    EXPECT_EQ(word(args, 8), 64u);
    EXPECT_EQ(word(args, 16), 0xa000u);
    EXPECT_EQ(word(args, 24), 64u);
    EXPECT_EQ(word(args, 32), 0xb000u);
    EXPECT_EQ(word(args, 40), 64u);
}

TEST(ReplayAddresses, ArraysRecordedOtherwiseThanTheTestMadeThemDoNotMatch) {
    std::string why;
    EXPECT_TRUE(three_arrays().match(why));
    EXPECT_FALSE(replay_addresses({{0x1000, 256}}, {{0x9000, 256}, {0xa000, 256}}).match(why));
    EXPECT_NE(why.find("recorded arrays are 1"), std::string::npos) << why;
    EXPECT_FALSE(replay_addresses({{0x1000, 128}}, {{0x9000, 256}}).match(why));
    EXPECT_NE(why.find("128 bytes"), std::string::npos) << why;
}

TEST(ReplayAddresses, AnAddressWhereOneArrayEndsAndTheNextStartsIsTheNextOnes) {
    // a and b side by side in one allocation: 0x1000 + 256 is b's start.
    const replay_addresses addresses({{0x1000, 256}, {0x1100, 256}}, {{0x9000, 256}, {0xa000, 256}});
    scratch_memory scratch;
    EXPECT_EQ(addresses.translate({0x1100, 0x1000, 512}, std::ref(scratch)), 0xa000u);
    EXPECT_EQ(addresses.translate({0x1200, 0x1000, 512}, std::ref(scratch)), 0xa100u);  // b's end
}

TEST(ReplayAddresses, ACopyOrMemsetIsMovedOnlyWhereItStaysInsideWhatItIsIn) {
    scratch_memory scratch;
    const replay_addresses addresses = three_arrays();
    // The whole of a, and its last 16 bytes.
    EXPECT_EQ(addresses.translate_range({0x1000, 0x1000, 256}, 256, std::ref(scratch)), 0x9000u);
    EXPECT_EQ(addresses.translate_range({0x10f0, 0x1000, 256}, 16, std::ref(scratch)), 0x90f0u);
    // One byte past a's end: not moved, whatever the driver said of it.
    EXPECT_FALSE(addresses.translate_range({0x10f0, 0x1000, 4096}, 17, std::ref(scratch)));
    // Scratch: inside the allocation, and past its end.
    const auto inside = addresses.translate_range({0x50010, 0x50000, 64}, 48, std::ref(scratch));
    ASSERT_TRUE(inside);
    EXPECT_FALSE(addresses.translate_range({0x50010, 0x50000, 64}, 49, std::ref(scratch)));
    // Not device memory at all.
    EXPECT_FALSE(addresses.translate_range({0x7fff0000, 0, 0}, 4, std::ref(scratch)));
}
