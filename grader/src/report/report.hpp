#pragma once
// The result of grading one lesson: what every format (text, JSON,
// Gradescope, JUnit) is written from.
#include <string>
#include <vector>

#include "report/kernel_measure.hpp"

namespace grader {

enum class test_status {
    passed,
    failed,
    skipped,    // could not run here (no GPU): earns nothing, claims nothing
    crashed,    // the process died during this test
    timed_out,  // the test ran past the time limit and was stopped
    missing,    // the test program never reported this test
    not_run,    // performance test held back until correctness passes
};
const char* to_string(test_status s);

struct graded_test {
    std::string id;     // "VecAdd.PartialLastBlock"
    std::string title;  // "129 elements, 128 threads per block"
    int points = 0;
    bool performance = false;
    bool gpu = true;
    test_status status = test_status::missing;
    std::vector<std::string> messages;  // what went wrong and why, already cleaned up
    double ms = 0;
    // A speed test's figure, as the judge measured it ("4353 GB/s, 103% of
    // this GPU's copy bandwidth; 60% is needed"), passed or not (a failure's
    // message says it too); empty where none was said.
    std::string figure;
    // Nsight Compute's profile of the test's kernels, where one was asked
    // for (`grader run --profile`); it never changes the score.
    std::vector<kernel_measure> kernels;
    bool profiled = false;  // a profile was taken (with no kernel in it, none ran)
    // Every failure explained by the test from its data, by a cause that no
    // compute-sanitizer tool looks at (the stream the work ran on, rounding): no
    // rerun under the tools (course/testing/explained.hpp).
    bool explained_beyond_the_tools = false;

    int score() const { return status == test_status::passed ? points : 0; }
};

struct lesson_report {
    std::string lesson_id;   // "lesson01"
    std::string title;       // "vector addition"
    std::string readme;      // "lessons/01_vecadd/README.md": where the next step is explained
    std::string variant;     // "exercise", "solution", "mutant_..."
    std::string device;      // "NVIDIA H200 (sm_90)", empty without one
    std::string no_gpu_reason;
    unsigned long long seed = 0;
    std::vector<graded_test> tests;
    std::vector<std::string> notes;  // what the grader ignored or could not do
    // Seconds spent explaining failures (compute-sanitizer, Nsight Compute)
    // once the verdicts were in.
    double evidence_seconds = 0;
    // A practice grade: the student edition has no reference solution, so
    // the student's own program judged its results (run/grade.cpp). Feedback,
    // not a grade for credit; every format says so.
    bool practice = false;

    int score() const;
    int max_score() const;
    bool graded() const;  // at least one test really ran (passed or failed)
    int count(test_status s) const;
};

// What every format says of a practice grade.
inline constexpr const char* practice_grade_note =
    "practice grade: worked out in your own program (this edition of the course has no reference "
    "solution to judge with); your instructor's grading decides";

}  // namespace grader
