#pragma once
// The pieces of the text report shared by its two views (text_report.cpp)
// and the machine formats (formats.cpp): marks, padding by display width,
// a test's message lines, wrapping to the terminal.
#include <cstddef>
#include <string>
#include <vector>

#include "report/formats.hpp"

namespace grader {

// Column where a test's "points" start: titles are padded to this width.
inline constexpr std::size_t title_width = 52;
// A test's messages are cut after this many lines.
inline constexpr std::size_t max_message_lines = 8;

std::string paint(const text_style& style, const char* code, const std::string& text);
// Display width of UTF-8 text: code points, not bytes.
std::size_t display_width(const std::string& s);
// `s` followed by spaces up to display width `w` (at least one space).
std::string pad(const std::string& s, std::size_t w);
std::string mark(const graded_test& t, const text_style& style);
std::vector<std::string> lines_of(const std::string& text);
// The messages a person should read for a test, capped so that one broken
// test cannot bury the rest of the report.
std::vector<std::string> message_lines(const graded_test& t);
// "(needs correctness first)", "(crashed)", ...: empty for passed and failed.
std::string status_note(const graded_test& t);
// `line` (already indented by `indent` spaces) broken at spaces into lines no
// wider than `width`, the later ones indented by `indent` + 2; as it is where
// width is 0 or a word is longer than the line.
std::vector<std::string> wrap(const std::string& line, std::size_t indent, std::size_t width);

}  // namespace grader
