// The device code the grader hands the judge (evidence/device_code.hpp): the
// fat binary nvcc made of each source, kept beside the library by the build,
// and the library's own sections (read with libelf) apart from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "evidence/device_code.hpp"
#include "course/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

bool holds(const fs::path& file, const std::string& bytes) { return bytes_of(file).find(bytes) != std::string::npos; }

std::vector<fs::path> fatbins_in(const fs::path& folder) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.path().extension() == ".fatbin") files.push_back(entry.path());
    return files;
}

}  // namespace

// lesson01's library: what nvcc made of its CUDA source, one fat binary.
TEST(DeviceCode, WhatNvccMadeOfEachSourceIsWrittenOut) {
    if (!grader::reads_device_code()) GTEST_SKIP() << "built without libelf (libelf-dev)";
    const course::temp_dir folder("device-code");
    const auto written = grader::write_device_code(LIBRARY_WITH_DEVICE_CODE, folder.path() / "code");
    ASSERT_TRUE(written.error.empty()) << written.error;
    EXPECT_EQ(written.fat_binaries, 1);  // vecadd.cu; vecadd_cpu.cpp has none
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

// A source that places machine code made elsewhere in a section named like
// nvcc's: the judge gets only what nvcc made of the source, and the
// library's sections (with the pasted code) only in library/, where they
// name a refused kernel and never run.
TEST(DeviceCode, MachineCodeASourcePlacedInTheLibraryIsNotHandedOverToReplay) {
    if (!grader::reads_device_code()) GTEST_SKIP() << "built without libelf (libelf-dev)";
    const course::temp_dir folder("device-code");
    const auto written = grader::write_device_code(LIBRARY_WITH_PASTED_CODE, folder.path());
    ASSERT_TRUE(written.error.empty()) << written.error;
    ASSERT_EQ(written.fat_binaries, 1);
    const std::string pasted = "machine code made elsewhere";
    EXPECT_FALSE(holds(folder.path() / "1.fatbin", pasted)) << "the pasted bytes would replay as the student's";
    const auto sections = fatbins_in(folder.path() / "library");
    ASSERT_FALSE(sections.empty());
    EXPECT_TRUE(std::any_of(sections.begin(), sections.end(), [&](const fs::path& f) { return holds(f, pasted); }))
        << "the library's own sections are written beside, for the judge to name a refused kernel";
}

// A library whose build kept no device code (built outside the course's
// CMake, or before it kept any) has none to replay, and says why.
TEST(DeviceCode, ALibraryBuiltWithoutKeepingItsDeviceCodeSaysSo) {
    if (!grader::reads_device_code()) GTEST_SKIP() << "built without libelf (libelf-dev)";
    const course::temp_dir folder("device-code");
    const auto written = grader::write_device_code(LIBRARY_NOT_KEPT, folder.path());
    EXPECT_EQ(written.fat_binaries, 0);
    EXPECT_NE(written.error.find("was not kept"), std::string::npos) << written.error;
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
