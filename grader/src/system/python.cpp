#include "system/python.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <vector>

#include "system/process.hpp"
#include "system/user_error.hpp"

namespace grader {

std::string find_python(const std::filesystem::path& log) {
    std::vector<std::string> candidates;
    if (const char* chosen = std::getenv("COURSE_PYTHON"); chosen && *chosen) candidates.push_back(chosen);
    candidates.push_back("python3");
    candidates.push_back("/usr/bin/python3");
    std::string last_error;
    for (const auto& python : candidates) {
        try {
            const exit_status status = run_command({"/usr/bin/env", python, "-c", "import matplotlib"}, log);
            if (!status.signaled && status.code == 0) return python;
            last_error = tail_of_file(log, 2);
        } catch (const std::exception& e) {
            last_error = e.what();
        }
    }
    throw user_error(usage_error,
                     fmt::format("no Python with matplotlib found (tried {}), so nothing can be drawn:\n  {}"
                                 "Install it (Debian/Ubuntu: sudo apt install python3-matplotlib; elsewhere: "
                                 "python3 -m pip install matplotlib), or point COURSE_PYTHON at a Python that has it.",
                                 fmt::join(candidates, ", "), last_error));
}

}  // namespace grader
