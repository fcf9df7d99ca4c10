#pragma once
// Finding the Python that draws the course's pictures (grader/plot/): shared
// by `grader plot` and the batch class report.
#include <filesystem>
#include <string>

namespace grader {

// A Python 3 that can import matplotlib: $COURSE_PYTHON, else python3 on the
// PATH, else the system's /usr/bin/python3 (where apt puts python3-matplotlib,
// which a pyenv or conda python3 earlier on the PATH does not see). `log` is a
// scratch file for the probes' output. Throws user_error (usage_error) that
// says how to install matplotlib when none can.
std::string find_python(const std::filesystem::path& log);

}  // namespace grader
