#pragma once
// Finding the Python that draws the course's pictures (grader/plot/): shared
// by `grader plot` and the batch class report.
#include <filesystem>
#include <future>
#include <string>

namespace grader {

// A Python 3 that can import matplotlib: $COURSE_PYTHON, else python3 on the
// PATH, else the system's /usr/bin/python3 (where apt puts python3-matplotlib,
// which a pyenv or conda python3 earlier on the PATH does not see). `log` is a
// scratch file for the probes' output. Throws user_error (usage_error) that
// says how to install matplotlib when none can.
std::string find_python(const std::filesystem::path& log);

// find_python, started now on a thread of its own: a Python's start and
// matplotlib's import take about half a second, which a batch spends while
// it grades rather than after, before its class report.
class python_search_ahead {
public:
    python_search_ahead();
    // Waits for the search: the Python, or find_python's user_error.
    std::string get() const { return found_.get(); }

private:
    std::shared_future<std::string> found_;
};

}  // namespace grader
