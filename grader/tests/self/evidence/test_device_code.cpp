// The device code the grader hands the judge (evidence/device_code.hpp): each
// object's fat binary, read out of a static library with libelf.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "evidence/device_code.hpp"
#include "course/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

// course_testing holds CUDA sources of its own (fresh_inputs.cu,
// stream_hold.cu, replay_check.cu): one fat binary each, as nvcc embeds it.
TEST(DeviceCode, EachObjectsFatBinaryIsWrittenOut) {
    if (!grader::reads_device_code()) GTEST_SKIP() << "built without libelf (libelf-dev)";
    const course::temp_dir folder("device-code");
    const auto written = grader::write_device_code(LIBRARY_WITH_DEVICE_CODE, folder.path() / "code");
    ASSERT_TRUE(written.error.empty()) << written.error;
    EXPECT_GE(written.fat_binaries, 3);
    for (int i = 1; i <= written.fat_binaries; ++i) {
        const std::string image = bytes_of(folder.path() / "code" / (std::to_string(i) + ".fatbin"));
        ASSERT_GE(image.size(), 16u) << i;
        std::uint32_t magic = 0;
        std::memcpy(&magic, image.data(), 4);
        EXPECT_EQ(magic, 0xBA55ED50u) << "file " << i << " is not a fat binary";
    }
}

TEST(DeviceCode, ALibraryOfHostCodeHasNone) {
    if (!grader::reads_device_code()) GTEST_SKIP() << "built without libelf (libelf-dev)";
    const course::temp_dir folder("device-code");
    const auto written = grader::write_device_code(LIBRARY_WITHOUT_DEVICE_CODE, folder.path());
    EXPECT_TRUE(written.error.empty()) << written.error;
    EXPECT_EQ(written.fat_binaries, 0);
}

TEST(DeviceCode, WhatIsNotALibraryIsNamed) {
    if (!grader::reads_device_code()) GTEST_SKIP() << "built without libelf (libelf-dev)";
    const course::temp_dir folder("device-code");
    std::ofstream(folder.path() / "notes.txt") << "not an object\n";
    const auto written = grader::write_device_code(folder.path() / "notes.txt", folder.path() / "code");
    EXPECT_EQ(written.fat_binaries, 0);
    EXPECT_NE(written.error.find("notes.txt"), std::string::npos) << written.error;
    const auto missing = grader::write_device_code(folder.path() / "gone.a", folder.path() / "code");
    EXPECT_NE(missing.error.find("cannot open"), std::string::npos) << missing.error;
}
