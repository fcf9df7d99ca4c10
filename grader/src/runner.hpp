#pragma once
// Runs a lesson's graded-test program and turns what it reports into a
// lesson_report, isolating the student's code: each program run streams one
// event per test start and end; a crash or a hang costs the test in flight,
// and the tests after it run again in a fresh process. A test the program
// never reports scores zero.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "report.hpp"

namespace grader {

struct listed_test {
    std::string id, title, kind;
    int points = 0;
    bool gpu = true;
};

// `<tests> --graded-list`: the tests a program must report, with points.
std::vector<listed_test> list_graded_tests(const std::filesystem::path& tests_program,
                                           const std::filesystem::path& log_dir);

struct run_options {
    std::filesystem::path tests_program;
    std::filesystem::path log_dir;   // each process's output is kept here
    unsigned long long seed = 0;
    std::chrono::milliseconds per_test_limit{60'000};
    std::vector<std::string> only;   // test ids to run; empty: all
};

// Runs the correctness tests; then, if they all passed, the performance tests.
std::vector<graded_test> run_graded_tests(const run_options& options);

// Turns GoogleTest's wording into the report's: unwraps exceptions, folds
// SCOPED_TRACE context into one line.
std::string clean_message(const std::string& gtest_message);

}  // namespace grader
