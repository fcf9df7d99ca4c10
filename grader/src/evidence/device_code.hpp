#pragma once
// The device code compiled into the student's library, handed to the judge:
// each object's `.nv_fatbin` section (the fat binary nvcc embeds: every
// kernel of that source file, as machine code for each architecture built
// and as PTX), written into a folder the judge reads and the student's
// program may not write. The judge loads them into its own process and
// replays each timed call from them (course/testing/student_modules.hpp),
// so the kernels it times are the ones the build made from the submission.
//
// Read with libelf, which walks both a static library's members and a
// single object. Built without libelf (libelf-dev), nothing is written and
// the judge says it has no device code to replay.
#include <filesystem>
#include <string>

namespace grader {

struct device_code_result {
    int fat_binaries = 0;  // files written
    std::string error;     // why none could be read; empty otherwise
};

// Writes every `.nv_fatbin` section of `library` (an archive of objects, or
// one object) into `folder` as 1.fatbin, 2.fatbin, ... `folder` is made
// where it is missing; files already in it are left alone.
device_code_result write_device_code(const std::filesystem::path& library, const std::filesystem::path& folder);

// Whether this grader was built able to read device code (with libelf).
bool reads_device_code();

}  // namespace grader
