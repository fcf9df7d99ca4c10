#pragma once
// Finding the build folder and the lessons in it, with errors that say how to fix them.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "checkout/manifest.hpp"
#include "system/user_error.hpp"

namespace grader {

// What every command is given: the build folder it was pointed at
// (--build-dir), or none, and then open_build looks for one.
struct common_args {
    std::optional<std::filesystem::path> build_dir;
};

manifest open_build(const std::optional<fs::path>& build_dir);
const lesson_info& find_lesson(const manifest& m, const std::string& name);

// -o must never overwrite the course's own files, least of all the student's:
// throws a usage error when `output` lies inside exercises/, solutions/,
// lessons/, common/ or grader/.
void check_output_path(const manifest& m, const fs::path& output);

}  // namespace grader
