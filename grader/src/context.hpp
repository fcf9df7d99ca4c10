#pragma once
// Finding the build folder and the lessons in it, with errors that say how to fix them.
#include <optional>
#include <stdexcept>
#include <string>

#include "exit_codes.hpp"
#include "manifest.hpp"

namespace grader {

// An error for the student: printed as "grader: <message>", then the exit code.
struct user_error : std::runtime_error {
    user_error(exit_code code, const std::string& message) : std::runtime_error(message), code(code) {}
    exit_code code;
};

manifest open_build(const std::optional<fs::path>& build_dir);
const lesson_info& find_lesson(const manifest& m, const std::string& name);

// -o must never overwrite the course's own files, least of all the student's:
// throws a usage error when `output` lies inside exercises/, solutions/,
// lessons/, common/ or grader/.
void check_output_path(const manifest& m, const fs::path& output);

}  // namespace grader
