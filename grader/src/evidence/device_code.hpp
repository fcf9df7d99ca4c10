#pragma once
// The device code of the student's library, handed to the judge: the fat
// binary nvcc made of each of the library's CUDA sources (kept beside the
// library by the build, cmake/CourseLesson.cmake: every kernel of that
// source, as machine code for each architecture built and as PTX), written
// into a folder the judge reads and the student's program may not write. The
// judge loads them into its own process and replays each timed call from
// them (course/testing/student_modules.hpp), so the kernels it times are the
// ones nvcc made from the submission's sources.
//
// The library's own `.nv_fatbin` sections are written beside them, into
// `library/`, for the judge to name a kernel that is in the library but was
// not compiled from its sources (a byte array a source file placed in a
// section of that name): never to run it. They are read with libelf, which
// walks both a static library's members and a single object. Built without
// libelf (libelf-dev), nothing is written and the judge says it has no
// device code to replay.
#include <filesystem>
#include <string>

namespace grader {

struct device_code_result {
    int fat_binaries = 0;  // files written
    std::string error;     // why none could be read; empty otherwise
};

// Where the build kept the device code of `library`'s sources:
// lib<name>.a -> lib<name>.device_code/, one <source>.fatbin each.
std::filesystem::path kept_device_code_dir(const std::filesystem::path& library);

// Writes the fat binaries kept for `library`'s sources into `folder` as
// 1.fatbin, 2.fatbin, ..., and every `.nv_fatbin` section of `library` (an
// archive of objects, or one object) into `folder`/library/ the same way.
// `folder` is made where it is missing; files already in it are left alone.
// `fat_binaries` counts the first kind.
device_code_result write_device_code(const std::filesystem::path& library, const std::filesystem::path& folder);

// Whether this grader was built able to read device code (with libelf).
bool reads_device_code();

}  // namespace grader
