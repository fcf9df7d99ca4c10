#include "report/formats.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "report/text_parts.hpp"

namespace grader {

namespace {
using nlohmann::json;

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

std::size_t terminal_width(int fd) {
    if (!isatty(fd)) return 0;
    winsize size{};
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 80;
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
    if (!r.readme.empty()) j["readme"] = r.readme;
    if (!r.no_gpu_reason.empty()) j["no_gpu_reason"] = r.no_gpu_reason;
    if (!r.notes.empty()) j["notes"] = r.notes;
    j["evidence_seconds"] = r.evidence_seconds;
    if (r.practice) {
        j["practice"] = true;
        j["practice_note"] = practice_grade_note;
    }
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
    if (r.practice) summary += std::string("\n") + practice_grade_note;
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
                       "      <property name=\"device\" value=\"{}\"/>\n{}    </properties>\n",
                       r.score(), r.max_score(), r.seed, xml_escape(r.device),
                       r.practice ? fmt::format("      <property name=\"practice\" value=\"{}\"/>\n",
                                                xml_escape(practice_grade_note))
                                  : std::string());
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
