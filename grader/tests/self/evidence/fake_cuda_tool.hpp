#pragma once
// For the grader's tests of its tool reruns: a stand-in for a CUDA toolkit
// program (compute-sanitizer, ncu), found through its variable as the real
// one is (cuda_tool_path.hpp), while each "run" writes the report the test
// says the tool would; and the value after a flag of its command line.
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "course/temp_dir.hpp"

namespace grader::testing {

class fake_cuda_tool {
public:
    fake_cuda_tool(const char* variable, const char* name) : dir("grader-fake-tool"), variable_(variable) {
        const auto tool = dir.path() / name;
        std::ofstream(tool) << "#!/bin/sh\n";
        setenv(variable_, tool.c_str(), 1);
    }
    ~fake_cuda_tool() { unsetenv(variable_); }
    fake_cuda_tool(const fake_cuda_tool&) = delete;
    fake_cuda_tool& operator=(const fake_cuda_tool&) = delete;

    course::temp_dir dir;

private:
    const char* variable_;
};

// "--log-file" in {..., "--log-file", "r.txt", ...} -> "r.txt"; empty where absent.
inline std::string arg_after(const std::vector<std::string>& args, const std::string& name) {
    const auto it = std::find(args.begin(), args.end(), name);
    return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

}  // namespace grader::testing
