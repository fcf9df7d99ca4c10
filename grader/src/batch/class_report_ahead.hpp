#pragma once
// The class report's Python, started while the class is graded (`grader
// batch`). Finding a Python with matplotlib and importing matplotlib take
// most of the report's time, which the batch would spend after its last
// explanation. Started ahead, grader/plot/class_report.py imports
// matplotlib and waits for its arguments on a socket (--arguments-on-fd),
// so that at the end it only draws: after a lesson07 class on an H200
// machine, 0.6 s where starting it then took 1.1 s. Never asked to draw
// (the batch stopped on an error before its report), it reads the socket's
// end and exits having drawn nothing.
#include <filesystem>
#include <future>
#include <memory>

#include "course/temp_dir.hpp"
#include "system/process.hpp"

namespace grader {

class class_report_ahead {
public:
    // Starts the search for a Python (python.hpp) and then `script` in it, on
    // a thread of its own: the constructor does not wait for either.
    explicit class_report_ahead(const std::filesystem::path& script);
    ~class_report_ahead();
    class_report_ahead(const class_report_ahead&) = delete;
    class_report_ahead& operator=(const class_report_ahead&) = delete;

    // Has the waiting script draw `data_file` (class_report.json) into
    // `out_dir`, and waits for it to end: its exit status, its output in
    // log(). Throws find_python's user_error where no Python has
    // matplotlib. Once only.
    exit_status draw(const std::filesystem::path& data_file, const std::filesystem::path& out_dir);
    std::filesystem::path log() const { return scratch_ / "class_report.log"; }

private:
    struct waiting_script;  // the script's process, and the grader's end of its socket
    course::temp_dir scratch_;
    std::future<std::unique_ptr<waiting_script>> started_;
};

}  // namespace grader
