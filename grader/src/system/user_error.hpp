#pragma once
// An error for the student or the instructor: printed as "grader: <message>",
// then the exit code. Every stage throws it; main() alone catches it.
#include <stdexcept>
#include <string>

#include "system/exit_codes.hpp"

namespace grader {

struct user_error : std::runtime_error {
    user_error(exit_code code, const std::string& message) : std::runtime_error(message), code(code) {}
    exit_code code;
};

}  // namespace grader
