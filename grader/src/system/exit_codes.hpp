#pragma once
// The grader's exit codes, distinct so scripts and LMS wrappers can branch on them.
namespace grader {

enum exit_code : int {
    all_passed = 0,    // every graded test passed: full marks
    some_failed = 1,   // graded, and at least one test lost points
    not_graded = 2,    // nothing could be graded: no GPU, so the GPU tests were skipped
    usage_error = 3,   // unknown lesson, bad option, unwritable output file
    build_error = 4,   // no build folder, or the code did not compile
};

inline constexpr const char* exit_code_help =
    "Exit codes: 0 all tests passed, 1 some tests failed, 2 GPU tests skipped (no GPU;\n"
    "            only the tests that need none were graded), 3 usage error, 4 build or setup error.";

}  // namespace grader
