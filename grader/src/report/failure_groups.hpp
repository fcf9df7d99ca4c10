#pragma once
// Failed tests that fail for one reason, found so that the short report
// (text_report.cpp) says the reason once instead of once per test.
//
// - An unfinished part: the test threw course::todo's "not implemented yet:
//   lesson01::vecadd in exercises/01_vecadd/vecadd.cu:29". Every test it
//   blocks is one group, named by the part and the place of its todo.
// - The same first message: the same exception, or the same
//   compute-sanitizer finding (the same kind of access in the same kernel at
//   the same line; the thread and the address may differ).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace grader {

struct unfinished_part {
    std::string part;      // "lesson01::vecadd"
    std::string location;  // "exercises/01_vecadd/vecadd.cu:29", empty where the message names none
    std::vector<std::size_t> tests;  // indices into lesson_report::tests, in report order
    int points = 0;
};

struct failure_groups {
    std::vector<unfinished_part> unfinished;  // in the order of their first test
    // A test shown with its messages -> the later tests that failed for the same reason.
    std::map<std::size_t, std::vector<std::size_t>> same_reason;
    std::vector<bool> folded;  // per test: said by a group, not shown on its own
};

failure_groups group_failures(const lesson_report& report);

}  // namespace grader
