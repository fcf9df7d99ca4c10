#include "report/text_parts.hpp"

#include <fmt/format.h>

#include <sstream>

namespace grader {

std::string paint(const text_style& style, const char* code, const std::string& text) {
    return style.color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
}

std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string pad(const std::string& s, std::size_t w) {
    const std::size_t have = display_width(s);
    return have >= w ? s + " " : s + std::string(w - have, ' ');
}

std::string mark(const graded_test& t, const text_style& style) {
    switch (t.status) {
        case test_status::passed: return paint(style, "32", style.unicode ? "✓" : "+");
        case test_status::skipped:
        case test_status::not_run: return paint(style, "33", style.unicode ? "–" : "-");
        default: return paint(style, "31", style.unicode ? "✗" : "x");
    }
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// One block per failure, the first two.
std::vector<std::string> message_lines(const graded_test& t) {
    std::vector<std::string> out;
    std::size_t shown_failures = 0;
    for (const auto& m : t.messages) {
        if (shown_failures == 2) {
            out.push_back(fmt::format("(+{} more failures like these)", t.messages.size() - 2));
            break;
        }
        for (const auto& line : lines_of(m)) out.push_back(line);
        ++shown_failures;
    }
    if (out.size() > max_message_lines) {
        out.resize(max_message_lines);
        out.push_back("...");
    }
    return out;
}

std::string status_note(const graded_test& t) {
    switch (t.status) {
        case test_status::not_run: return "(needs correctness first)";
        case test_status::skipped: return "(skipped)";
        case test_status::crashed: return "(crashed)";
        case test_status::timed_out: return "(timed out)";
        case test_status::missing: return "(did not report)";
        default: return "";
    }
}

std::vector<std::string> wrap(const std::string& line, std::size_t indent, std::size_t width) {
    if (width == 0 || display_width(line) <= width) return {line};
    std::vector<std::string> out;
    std::string current = line.substr(0, indent);
    std::size_t current_width = indent;
    bool first_word = true;
    std::istringstream words(line.substr(indent));
    for (std::string word; words >> word;) {
        const std::size_t w = display_width(word);
        if (!first_word && current_width + 1 + w > width) {
            out.push_back(current);
            current = std::string(indent + 2, ' ') + word;
            current_width = indent + 2 + w;
        } else {
            current += (first_word ? "" : " ") + word;
            current_width += (first_word ? 0 : 1) + w;
        }
        first_word = false;
    }
    out.push_back(current);
    return out;
}

}  // namespace grader
