#pragma once
// Where a CUDA toolkit program (ncu, cuobjdump, compute-sanitizer) is: the
// path in an environment variable the course names, else the PATH, else the
// toolkit's usual bin folder.
#include <filesystem>
#include <optional>
#include <string>

namespace grader {

// `variable` (e.g. COURSE_NCU) names the program itself, when set.
std::optional<std::filesystem::path> find_cuda_tool(const char* variable, const std::string& name);

}  // namespace grader
