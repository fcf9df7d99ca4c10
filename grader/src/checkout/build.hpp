#pragma once
// Building a lesson's targets through CMake, and turning a failed build into
// the one error a student needs to see first.
#include <filesystem>
#include <string>
#include <vector>

#include "checkout/manifest.hpp"

namespace grader {

struct build_result {
    bool ok = false;
    std::filesystem::path log;  // the whole compiler output
    std::string digest;         // the first error, with its source line
};

build_result build_targets(const manifest& m, const std::vector<std::string>& targets);

// The first compiler error in a build log (nvcc, gcc, clang or the linker),
// with the offending source line when the file can be read.
std::string first_error(const std::string& build_log, const std::filesystem::path& source_root);

// "lesson01 does not compile, so no tests ran." with the first error and
// where the whole log is: what `grader run`, `grader watch` and a batch's
// report say of code that does not build.
std::string compile_failure_text(const lesson_info& lesson, const build_result& built);

}  // namespace grader
