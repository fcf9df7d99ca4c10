// The report for people. Two views of the same lesson_report:
//
// - the short view (the default): the next step first. Tests that fail for
//   one reason are said once (failure_groups.hpp): a part not started is one
//   line with the place of its course::todo and what it blocks, and a
//   failure shared by several tests is shown once, with the others named
//   after it. Long lines are wrapped to the terminal.
// - the verbose view (`grader run --verbose`): every test with its id (what
//   `grader run --test` takes) and its own messages, as the machine formats
//   keep them; also the tests skipped for want of a GPU.
#include <fmt/format.h>

#include <algorithm>

#include "report/failure_groups.hpp"
#include "report/formats.hpp"
#include "report/kernel_table.hpp"
#include "report/text_parts.hpp"

namespace grader {

namespace {

// The layout width where the terminal's is not known.
constexpr std::size_t default_width = 80;

struct text_out {
    const text_style& style;
    std::string text;

    // A line; message lines (indented 6) wrap to the terminal's width.
    void line(const std::string& s, std::size_t indent = 0) {
        for (const auto& part : wrap(s, indent, indent ? style.width : 0)) text += part + "\n";
    }
};

std::string header(const lesson_report& r, const text_style& style) {
    const char* dot = style.unicode ? " · " : " - ";
    std::string out = paint(style, "1", fmt::format("{}{}{}{}{}", r.lesson_id, dot, r.title, dot, r.variant));
    if (!r.device.empty()) out += dot + r.device;
    if (r.graded()) out += fmt::format("{}seed {}", dot, r.seed);
    return out;
}

void no_gpu_block(const lesson_report& r, text_out& out) {
    if (r.no_gpu_reason.empty()) return;
    const int skipped = r.count(test_status::skipped);
    out.line(fmt::format("  no CUDA device: {}.", r.no_gpu_reason), 2);
    if (!r.graded())
        out.line(fmt::format("  {} GPU tests skipped; nothing was graded. `grader doctor` checks your setup.", skipped), 2);
    else if (skipped > 0)
        out.line(fmt::format("  {} GPU tests skipped; only the tests that need no GPU were graded.", skipped), 2);
    out.line("");
}

// A test's own line, its id in the verbose view, its messages (not those of
// a test skipped for want of a GPU, which the report says once), its figure
// and its profile.
void test_block(const graded_test& t, text_out& out, bool said_once = false) {
    const text_style& style = out.style;
    std::string line = fmt::format("  {} {}{:>2}/{}", mark(t, style), pad(t.title, title_width), t.score(), t.points);
    if (const std::string note = status_note(t); !note.empty()) line += "   " + paint(style, "2", note);
    out.line(line);
    if (style.verbose && !t.id.empty()) out.line("      " + paint(style, "2", "test id: " + t.id));
    if (t.status != test_status::passed && t.status != test_status::not_run && !said_once)
        for (const auto& m : message_lines(t)) out.line("      " + m, 6);
    // A passed speed test shows its margin; a failed one says it in its message.
    if (t.status == test_status::passed && !t.figure.empty()) out.line("      " + paint(style, "2", t.figure));
    if (!t.kernels.empty()) {
        for (const auto& row : profile_table(t.kernels)) out.line("      " + paint(style, "2", row));
    } else if (t.profiled) {
        out.line("      " + paint(style, "2", "Nsight Compute saw no kernel run during this test"));
    }
}

std::string count_of(std::size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "not started: lesson01::vecadd" with the todo's place at the right edge
// when both fit on one line.
std::string part_line(const unfinished_part& p, const text_style& style) {
    const std::string left = fmt::format("  {} not started: {}", paint(style, "31", style.unicode ? "✗" : "x"), p.part);
    const std::size_t width = style.width ? style.width : default_width;
    const std::size_t used = display_width(fmt::format("  x not started: {}", p.part));
    if (p.location.empty()) return left;
    if (used + 2 + p.location.size() > width) return left + "  " + p.location;
    return left + std::string(width - used - p.location.size(), ' ') + p.location;
}

// What the held-back speed tests wait for: the parts not started, when
// nothing else failed; every correctness test otherwise.
std::string waiting_text(std::size_t waiting, bool only_unfinished) {
    if (waiting == 0) return "";
    const char* what = only_unfinished ? "them" : "every correctness test";
    return waiting == 1 ? fmt::format("; the speed test waits for {}", what)
                        : fmt::format("; {} speed tests wait for {}", waiting, what);
}

void short_body(const lesson_report& r, const failure_groups& groups, text_out& out) {
    const std::size_t waiting = static_cast<std::size_t>(r.count(test_status::not_run));
    std::size_t unfinished_tests = 0;
    for (const auto& p : groups.unfinished) unfinished_tests += p.tests.size();
    const std::size_t failed = r.tests.size() - static_cast<std::size_t>(r.count(test_status::passed)) - waiting -
                               static_cast<std::size_t>(r.count(test_status::skipped));
    const bool only_unfinished = failed == unfinished_tests;
    // The next step first: the first part not started, with what to do; the
    // other parts a line each, in the order the tests reach them.
    if (!groups.unfinished.empty()) {
        const unfinished_part& next = groups.unfinished.front();
        const bool alone = groups.unfinished.size() == 1;
        out.line(part_line(next, out.style));
        out.line("      write it, then delete the course::todo(...) call", 6);
        out.line(fmt::format("      it blocks {} ({}){}", count_of(next.tests.size(), "test", "tests"),
                             count_of(static_cast<std::size_t>(next.points), "point", "points"),
                             alone ? waiting_text(waiting, only_unfinished) : ""),
                 6);
        if (!alone) {
            std::size_t tests = 0;
            int points = 0;
            for (std::size_t g = 1; g < groups.unfinished.size(); ++g) {
                tests += groups.unfinished[g].tests.size();
                points += groups.unfinished[g].points;
            }
            out.line(fmt::format("  {} {} not started ({}, {}):",
                                 paint(out.style, "31", out.style.unicode ? "✗" : "x"),
                                 count_of(groups.unfinished.size() - 1, "more part", "more parts"),
                                 count_of(tests, "test", "tests"), count_of(static_cast<std::size_t>(points), "point", "points")),
                     4);
            for (std::size_t g = 1; g < groups.unfinished.size(); ++g) {
                const unfinished_part& p = groups.unfinished[g];
                out.line(fmt::format("      {}  {}", p.part, p.location), 6);
            }
            if (waiting > 0) out.line("      " + waiting_text(waiting, only_unfinished).substr(2), 6);
        }
    }
    for (std::size_t i = 0; i < r.tests.size(); ++i) {
        const graded_test& t = r.tests[i];
        if (groups.folded[i]) continue;
        if (t.status == test_status::skipped && !r.no_gpu_reason.empty()) continue;  // said once above
        if (t.status == test_status::not_run && !groups.unfinished.empty()) continue;  // said with the parts
        test_block(t, out);
        if (auto same = groups.same_reason.find(i); same != groups.same_reason.end()) {
            std::vector<std::string> titles;
            int points = 0;
            for (std::size_t j : same->second) {
                titles.push_back(r.tests[j].title);
                points += r.tests[j].points;
            }
            out.line(fmt::format("      the same in {} ({}): {}", count_of(titles.size(), "more test", "more tests"),
                                 count_of(static_cast<std::size_t>(points), "point", "points"), fmt::join(titles, "; ")),
                     6);
        }
    }
}

void verbose_body(const lesson_report& r, text_out& out) {
    for (const auto& t : r.tests)
        test_block(t, out, /*said_once=*/t.status == test_status::skipped && !r.no_gpu_reason.empty());
}

// `groups`: the report's failure groups (the short view's); nothing in the verbose view.
std::string next_step(const lesson_report& r, const failure_groups& groups, const text_style& style) {
    const char* dot = style.unicode ? " · " : " - ";
    const bool full = r.score() == r.max_score();
    if (r.variant != "exercise") return "";
    if (full) return fmt::format("{}well done: on to the next lesson", dot);
    const bool nothing_started = !r.readme.empty() && r.score() == 0 && !groups.unfinished.empty();
    if (nothing_started) return fmt::format("{}next: read {}, then grader hint {}", dot, r.readme, r.lesson_id);
    return fmt::format("{}next: grader hint {}", dot, r.lesson_id);
}

}  // namespace

std::string format_text(const lesson_report& r, const text_style& style) {
    text_out out{style, {}};
    out.line(header(r, style));
    out.line("");
    no_gpu_block(r, out);
    // The groups are found once: the short view's body and its next step both use them.
    const failure_groups groups = style.verbose ? failure_groups{} : group_failures(r);
    if (style.verbose) verbose_body(r, out);
    else short_body(r, groups, out);
    out.line("");
    for (const auto& note : r.notes) out.line("  " + paint(style, "2", "note: " + note), 2);
    if (!r.notes.empty()) out.line("");
    if (r.graded()) {
        const bool full = r.score() == r.max_score();
        const char* score_word = r.practice ? "practice score" : "score";
        out.line("  " + paint(style, full ? "1;32" : "1", fmt::format("{} {}/{}", score_word, r.score(), r.max_score())) +
                 next_step(r, groups, style));
        if (r.practice) out.line("  " + paint(style, "2", practice_grade_note), 2);
    }
    return out.text;
}

}  // namespace grader
