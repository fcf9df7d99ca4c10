#include "report/formats.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "report/kernel_table.hpp"

namespace grader {

namespace {
using nlohmann::json;

constexpr std::size_t title_width = 52;
constexpr std::size_t max_message_lines = 8;

// A profile's figures, named as in the table; a figure ncu did not give is null.
json kernels_json(const std::vector<kernel_measure>& kernels) {
    auto figure = [](double v) { return v < 0 ? json(nullptr) : json(v); };
    json list = json::array();
    for (const auto& k : kernels)
        list.push_back({{"kernel", k.kernel},
                        {"mangled", k.mangled},
                        {"origin", k.origin.empty() ? json(nullptr) : json(k.origin)},
                        {"block", k.block},
                        {"grid", k.grid},
                        {"time_ns", figure(k.time_ns)},
                        {"dram_pct", figure(k.dram_pct)},
                        {"sm_pct", figure(k.sm_pct)},
                        {"load_sector_use_pct", figure(k.load_sector_use_pct)},
                        {"store_sector_use_pct", figure(k.store_sector_use_pct)},
                        {"global_load_requests", figure(k.load_requests)},
                        {"global_store_requests", figure(k.store_requests)},
                        {"shared_bank_conflict_pct", figure(k.shared_conflict_pct)},
                        {"achieved_occupancy_pct", figure(k.achieved_occupancy_pct)},
                        {"theoretical_occupancy_pct", figure(k.theoretical_occupancy_pct)},
                        {"occupancy_limit", k.occupancy_limit},
                        {"registers_per_thread", k.registers_per_thread < 0 ? json(nullptr) : json(k.registers_per_thread)},
                        {"shared_bytes_per_block", figure(k.shared_bytes_per_block)},
                        {"local_instructions", figure(k.local_instructions)},
                        {"instructions", figure(k.instructions)},
                        {"waves", figure(k.waves)}});
    return list;
}

std::string paint(const text_style& style, const char* code, const std::string& text) {
    return style.color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
}

// Display width of UTF-8 text: count code points, not bytes.
std::size_t width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string pad(const std::string& s, std::size_t w) {
    const std::size_t have = width(s);
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

// The messages a person should read for a test, one block per failure,
// capped so that one broken test cannot bury the rest of the report.
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

std::string joined_messages(const graded_test& t) {
    std::string text;
    for (const auto& m : t.messages) text += (text.empty() ? "" : "\n") + m;
    return text;
}

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                // XML 1.0 forbids most control characters; colour codes never belong here.
                if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
        }
    }
    return out;
}
}  // namespace

bool wants_color(int fd) {
    const char* no_color = std::getenv("NO_COLOR");
    if (no_color && *no_color) return false;
    return isatty(fd);
}

std::string format_text(const lesson_report& r, const text_style& style) {
    const char* dot = style.unicode ? " · " : " - ";
    std::string out = paint(style, "1", fmt::format("{}{}{}{}{}", r.lesson_id, dot, r.title, dot, r.variant));
    if (!r.device.empty()) out += dot + r.device;
    if (r.graded()) out += fmt::format("{}seed {}", dot, r.seed);
    out += "\n\n";

    const int skipped = r.count(test_status::skipped);
    if (!r.no_gpu_reason.empty()) {
        out += fmt::format("  no CUDA device: {}.\n", r.no_gpu_reason);
        if (!r.graded())
            out += fmt::format("  {} GPU tests skipped; nothing was graded. `grader doctor` checks your setup.\n", skipped);
        else if (skipped > 0)
            out += fmt::format("  {} GPU tests skipped; only the tests that need no GPU were graded.\n", skipped);
        out += "\n";
    }

    for (const auto& t : r.tests) {
        if (t.status == test_status::skipped && !r.no_gpu_reason.empty()) continue;  // said once above
        std::string line = fmt::format("  {} {}{:>2}/{}", mark(t, style), pad(t.title, title_width), t.score(), t.points);
        if (const std::string note = status_note(t); !note.empty()) line += "   " + paint(style, "2", note);
        out += line + "\n";
        if (t.status != test_status::passed && t.status != test_status::not_run)
            for (const auto& m : message_lines(t)) out += "      " + m + "\n";
        // A passed speed test shows its margin; a failed one says it in its message.
        if (t.status == test_status::passed && !t.figure.empty()) out += "      " + paint(style, "2", t.figure) + "\n";
        if (!t.kernels.empty()) {
            for (const auto& row : profile_table(t.kernels)) out += "      " + paint(style, "2", row) + "\n";
        } else if (t.profiled) {
            out += "      " + paint(style, "2", "Nsight Compute saw no kernel run during this test") + "\n";
        }
    }
    out += "\n";
    for (const auto& note : r.notes) out += "  " + paint(style, "2", "note: " + note) + "\n";
    if (!r.notes.empty()) out += "\n";
    if (r.graded()) {
        const bool full = r.score() == r.max_score();
        std::string total = fmt::format("score {}/{}", r.score(), r.max_score());
        out += "  " + paint(style, full ? "1;32" : "1", total);
        if (!full && r.variant == "exercise") out += fmt::format("{}next: grader hint {}", dot, r.lesson_id);
        if (full && r.variant == "exercise") out += fmt::format("{}well done: on to the next lesson", dot);
        out += "\n";
    }
    return out;
}

std::string format_json(const lesson_report& r) {
    json tests = json::array();
    for (const auto& t : r.tests) {
        tests.push_back({{"id", t.id},
                         {"title", t.title},
                         {"kind", t.performance ? "performance" : "correctness"},
                         {"gpu", t.gpu},
                         {"points", t.points},
                         {"score", t.score()},
                         {"status", to_string(t.status)},
                         {"messages", t.messages},
                         {"ms", t.ms}});
        if (!t.figure.empty()) tests.back()["figure"] = t.figure;
        if (t.profiled) tests.back()["kernels"] = kernels_json(t.kernels);
    }
    json j = {{"lesson", r.lesson_id}, {"title", r.title},   {"variant", r.variant},
              {"device", r.device},    {"seed", r.seed},     {"graded", r.graded()},
              {"score", r.score()},    {"max_score", r.max_score()}, {"tests", tests}};
    if (!r.no_gpu_reason.empty()) j["no_gpu_reason"] = r.no_gpu_reason;
    if (!r.notes.empty()) j["notes"] = r.notes;
    j["evidence_seconds"] = r.evidence_seconds;
    return j.dump(2) + "\n";
}

std::string format_gradescope(const lesson_report& r) {
    json tests = json::array();
    for (const auto& t : r.tests) {
        std::string output = joined_messages(t);
        if (t.status == test_status::passed && !t.figure.empty()) output = t.figure;
        if (const std::string note = status_note(t); !note.empty())
            output = note + (output.empty() ? "" : "\n" + output);
        tests.push_back({{"name", t.title},
                         {"number", t.id},
                         {"score", t.score()},
                         {"max_score", t.points},
                         {"status", t.status == test_status::passed ? "passed" : "failed"},
                         {"output", output},
                         {"visibility", "visible"}});
    }
    std::string summary = fmt::format("{} ({}): {}/{}", r.lesson_id, r.title, r.score(), r.max_score());
    if (!r.no_gpu_reason.empty()) summary += "\nno CUDA device: " + r.no_gpu_reason + "; GPU tests were not graded.";
    for (const auto& note : r.notes) summary += "\nnote: " + note;
    json j = {{"score", r.score()},
              {"max_score", r.max_score()},
              {"output", summary},
              {"visibility", "visible"},
              {"tests", tests}};
    return j.dump(2) + "\n";
}

std::string format_junit(const lesson_report& r) {
    int failures = 0, skipped = 0, errors = 0;
    double seconds = 0;
    for (const auto& t : r.tests) {
        seconds += t.ms / 1000;
        if (t.status == test_status::failed) ++failures;
        else if (t.status == test_status::skipped || t.status == test_status::not_run) ++skipped;
        else if (t.status != test_status::passed) ++errors;
    }
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
        xml_escape(r.lesson_id + "." + r.variant), r.tests.size(), failures, errors, skipped, seconds);
    out += fmt::format("    <properties>\n      <property name=\"score\" value=\"{}\"/>\n"
                       "      <property name=\"max_score\" value=\"{}\"/>\n"
                       "      <property name=\"seed\" value=\"{}\"/>\n"
                       "      <property name=\"device\" value=\"{}\"/>\n    </properties>\n",
                       r.score(), r.max_score(), r.seed, xml_escape(r.device));
    for (const auto& t : r.tests) {
        out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n",
                           xml_escape(r.lesson_id + "." + t.id.substr(0, t.id.find('.'))),
                           xml_escape(t.title), t.ms / 1000);
        out += fmt::format("      <properties><property name=\"points\" value=\"{}/{}\"/></properties>\n",
                           t.score(), t.points);
        const std::string text = xml_escape(joined_messages(t));
        const auto message_lines_of_first = t.messages.empty() ? std::vector<std::string>{} : lines_of(t.messages.front());
        const std::string first = xml_escape(message_lines_of_first.empty() ? status_note(t) : message_lines_of_first.front());
        switch (t.status) {
            case test_status::passed: break;
            case test_status::failed:
                out += fmt::format("      <failure message=\"{}\">{}</failure>\n", first, text);
                break;
            case test_status::skipped:
            case test_status::not_run:
                out += fmt::format("      <skipped message=\"{}\"/>\n", first);
                break;
            default:
                out += fmt::format("      <error type=\"{}\" message=\"{}\">{}</error>\n", to_string(t.status), first, text);
        }
        out += "    </testcase>\n";
    }
    out += "  </testsuite>\n</testsuites>\n";
    return out;
}

}  // namespace grader
