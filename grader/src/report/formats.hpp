#pragma once
// Writing a lesson_report: for people (text) and for machines (JSON,
// Gradescope's results.json, JUnit XML).
#include <cstddef>
#include <string>

#include "report/report.hpp"

namespace grader {

struct text_style {
    bool color = false;   // ANSI colours (off for NO_COLOR and non-terminals)
    bool unicode = true;  // ✓ ✗ – rather than + x -
    bool verbose = false;  // every test with its own messages, not the short view
    std::size_t width = 0;  // the terminal's columns, to wrap long messages; 0: no wrapping
};

// For people (text_report.cpp): the short view unless style.verbose.
std::string format_text(const lesson_report& report, const text_style& style);
std::string format_json(const lesson_report& report);
std::string format_gradescope(const lesson_report& report);
std::string format_junit(const lesson_report& report);

// True when colour should be used on this stream: a terminal, NO_COLOR unset.
bool wants_color(int fd);
// The columns of the terminal on `fd`; 0 when it is not a terminal.
std::size_t terminal_width(int fd);

}  // namespace grader
