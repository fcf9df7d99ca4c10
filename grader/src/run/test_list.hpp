#pragma once
// The graded tests of a lesson, as the judge lists them (`--graded-list`):
// the judge holds no student code, so ids, points and titles are the course's.
#include <filesystem>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace grader {

struct listed_test {
    std::string id, title, kind;
    int points = 0;
    bool gpu = true;
    bool alone = false;     // needs the GPU to itself (it measures time)
    bool kernel_speed = false;  // it measures the student's kernels' speed (profile_evidence.hpp)
    bool timed_by_judge = false;  // the judge's replay takes its time: the judge's test needs the GPU alone
    bool across_streams = false;  // it checks the order of work on different streams (GRADED_STREAM_TEST)
    // Timed by the judge, or from the student's record where the judge cannot
    // replay a call: the student's program has the GPU alone too (lesson05).
    bool record_alone = false;
};

// A listed test as the report starts it: its name, points and kind, not yet run.
graded_test not_yet_run(const listed_test& listed);

// `<program> --graded-list`: the tests, with points and titles. Asked of the
// judge, which holds no student code.
std::vector<listed_test> list_graded_tests(const std::filesystem::path& program,
                                           const std::filesystem::path& log_dir);

}  // namespace grader
