#include "batch/class_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <sstream>

#include "checkout/context.hpp"
#include "system/atomic_file.hpp"
#include "system/process.hpp"

namespace grader {

namespace {
using nlohmann::json;
using outcome = batch_result::outcome;

constexpr std::size_t max_diagnoses = 12;
constexpr std::size_t max_build_errors = 5;
constexpr std::size_t max_line = 240;  // a diagnosis is a line, not a log

std::vector<std::string> nonblank_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) continue;
        line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
        lines.push_back(line);
    }
    return lines;
}

std::string shortened(std::string line) {
    if (line.size() > max_line) line = line.substr(0, max_line) + "...";
    return line;
}

// Counts lines that say the same thing with other numbers as one, and shows
// the wording most of them used.
class line_tally {
public:
    void add(const std::string& group, const std::string& line) {
        auto& entry = groups_[group + '\n' + without_numbers(line)];
        entry.group = group;
        ++entry.count;
        ++entry.wordings[line];
    }
    struct row {
        std::string group, text;
        int count;
    };
    // Commonest first; ties in group, then text order, so reruns agree.
    std::vector<row> top(std::size_t n) const {
        std::vector<row> rows;
        for (const auto& [key, e] : groups_) {
            const auto most = std::max_element(e.wordings.begin(), e.wordings.end(),
                                               [](const auto& a, const auto& b) { return a.second < b.second; });
            rows.push_back({e.group, most->first, e.count});
        }
        std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) { return a.count > b.count; });
        if (rows.size() > n) rows.resize(n);
        return rows;
    }

private:
    struct entry {
        std::string group;
        int count = 0;
        std::map<std::string, int> wordings;
    };
    std::map<std::string, entry> groups_;
};

// The compiler's first error in what `grader run` prints for a build
// failure: the first line that names an error, else the first line.
std::string build_error_line(const std::string& build_error) {
    const auto lines = nonblank_lines(build_error);
    for (const auto& line : lines) {
        std::string lower = line;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (lower.find("error") != std::string::npos) return shortened(line);
    }
    return lines.empty() ? "the code did not compile" : shortened(lines.front());
}

bool lost(const graded_test& t) { return t.status != test_status::passed && t.status != test_status::skipped; }

double share(int count, int of) { return of == 0 ? 0.0 : static_cast<double>(count) / of; }

}  // namespace

std::string diagnosis_of(const graded_test& test) {
    auto lines = test.messages.empty() ? std::vector<std::string>{} : nonblank_lines(test.messages.front());
    // "(with n = 129, ...)" says which case failed, not what went wrong.
    lines.erase(std::remove_if(lines.begin(), lines.end(),
                               [](const std::string& l) { return l.rfind("(with ", 0) == 0 || l.rfind("(+", 0) == 0; }),
                lines.end());
    if (lines.empty()) return to_string(test.status);
    // A tool's finding leads with what it found; the thread, block and
    // addresses after it differ from student to student.
    if (lines.front().rfind("compute-sanitizer", 0) == 0)
        return shortened(lines.front().substr(0, lines.front().find(", thread")));
    // A profile's finding: what it measured, without the advice after it.
    if (lines.front().rfind("Nsight Compute", 0) == 0)
        return shortened(lines.front().substr(0, lines.front().find(". The change most likely to help")));
    return shortened(lines.size() > 1 ? lines.back() : lines.front());
}

std::string without_numbers(const std::string& line) {
    std::string out;
    for (std::size_t i = 0; i < line.size();) {
        if (!std::isdigit(static_cast<unsigned char>(line[i]))) {
            out += line[i++];
            continue;
        }
        // 1,048,576 and 1.2431 are one number each.
        while (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) ||
                                   ((line[i] == '.' || line[i] == ',') && i + 1 < line.size() &&
                                    std::isdigit(static_cast<unsigned char>(line[i + 1])))))
            ++i;
        out += '#';
    }
    return out;
}

json class_report_data(const std::string& lesson_id, const std::string& lesson_title,
                       const std::vector<batch_result>& results) {
    std::vector<const batch_result*> rows;
    for (const auto& r : results) rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(), [](auto a, auto b) { return a->student < b->student; });

    // The lesson's tests, in its order, with their points: from any report.
    struct test_row {
        std::string id, title;
        int points = 0;
        int lost = 0;
    };
    std::vector<test_row> tests;
    int max_score = 0;
    for (const batch_result* r : rows) {
        if (!r->report) continue;
        max_score = std::max(max_score, r->report->max_score());
        for (const auto& t : r->report->tests)
            if (std::none_of(tests.begin(), tests.end(), [&](const test_row& x) { return x.id == t.id; }))
                tests.push_back({t.id, t.title, t.points, 0});
    }

    int graded = 0, build_failures = 0, unsandboxed = 0;
    std::vector<int> scores;
    line_tally diagnoses, build_errors;
    json not_graded = json::array(), submissions = json::array();
    std::map<std::pair<std::string, std::string>, int> machines;
    for (const batch_result* r : rows) {
        const auto state = r->state();
        const std::string device = r->report ? r->report->device : "";
        json s = {{"student", r->student}, {"state", to_string(state)}, {"device", device}, {"worker", r->worker}};
        if (state == outcome::not_graded) {
            not_graded.push_back({{"student", r->student}, {"reason", r->not_graded_reason()}});
            submissions.push_back(s);
            continue;
        }
        ++graded;
        ++machines[{device, r->worker}];
        if (!r->sandboxed) {
            ++unsandboxed;
            s["sandboxed"] = false;
        }
        if (state == outcome::build_failed) {
            ++build_failures;
            scores.push_back(0);
            s["score"] = 0;
            build_errors.add("", build_error_line(r->build_error));
            for (auto& t : tests) ++t.lost;  // nothing ran: every test lost
            submissions.push_back(s);
            continue;
        }
        scores.push_back(r->report->score());
        s["score"] = r->report->score();
        submissions.push_back(s);
        for (const auto& t : r->report->tests) {
            if (!lost(t)) continue;
            for (auto& row : tests)
                if (row.id == t.id) ++row.lost;
            // A speed test held back until correctness passes is lost, but
            // its "needs correctness first" diagnoses nothing of its own.
            if (t.status != test_status::not_run) diagnoses.add(t.id, diagnosis_of(t));
        }
    }
    std::sort(scores.begin(), scores.end());

    json test_list = json::array();
    for (const auto& t : tests)
        test_list.push_back({{"id", t.id}, {"title", t.title}, {"points", t.points}, {"lost", t.lost},
                             {"share", share(t.lost, graded)}});
    json diagnosis_list = json::array();
    for (const auto& d : diagnoses.top(max_diagnoses)) {
        const auto t = std::find_if(tests.begin(), tests.end(), [&](const test_row& x) { return x.id == d.group; });
        diagnosis_list.push_back({{"test", d.group}, {"title", t == tests.end() ? "" : t->title}, {"text", d.text},
                                  {"students", d.count}, {"share", share(d.count, graded)}});
    }
    json build_error_list = json::array();
    for (const auto& e : build_errors.top(max_build_errors))
        build_error_list.push_back({{"text", e.text}, {"students", e.count}});
    json machine_list = json::array();
    for (const auto& [where, count] : machines)
        machine_list.push_back({{"device", where.first}, {"worker", where.second}, {"students", count}});

    double mean = 0;
    for (int s : scores) mean += s;
    if (!scores.empty()) mean /= static_cast<double>(scores.size());
    const double median = scores.empty() ? 0.0
                          : scores.size() % 2 ? scores[scores.size() / 2]
                                              : (scores[scores.size() / 2 - 1] + scores[scores.size() / 2]) / 2.0;

    return {{"schema", "course-class-report/1"},
            {"lesson", lesson_id},
            {"title", lesson_title},
            {"students", rows.size()},
            {"graded", graded},
            {"build_failures", build_failures},
            {"not_graded", not_graded.size()},
            // Graded with --no-sandbox: students' code ran with the grader's rights.
            {"unsandboxed", unsandboxed},
            {"max_score", max_score},
            {"scores", scores},
            {"mean", mean},
            {"median", median},
            {"tests", test_list},
            {"diagnoses", diagnosis_list},
            {"build_errors", build_error_list},
            {"not_graded_students", not_graded},
            {"machines", machine_list},
            {"submissions", submissions}};
}

std::filesystem::path class_report_script(const manifest& m) {
    return m.source_dir / "grader" / "plot" / "class_report.py";
}

void write_class_report(const json& data, const std::filesystem::path& out_dir,
                        const std::filesystem::path& script, class_report_ahead* ahead) {
    if (!std::filesystem::is_regular_file(script))
        throw user_error(build_error, fmt::format("the class report script {} is missing from the course: restore "
                                                  "it (git checkout -- grader/plot)",
                                                  script.string()));
    const std::filesystem::path data_file = out_dir / "class_report.json";
    // Names and messages come from students' files: bytes that are not UTF-8 are replaced, not fatal.
    write_file_atomically(data_file, data.dump(2, ' ', false, json::error_handler_t::replace) + "\n");

    // Without one started ahead, the script is started now, the same way.
    std::optional<class_report_ahead> started_now;
    if (!ahead) ahead = &started_now.emplace(script);
    const exit_status status =
        ahead->draw(std::filesystem::absolute(data_file), std::filesystem::absolute(out_dir));
    if (status.signaled || status.code != 0)
        throw user_error(build_error, fmt::format("the class report script failed ({}); its data is in {}, and "
                                                  "`python3 {} {}` runs it again:\n{}",
                                                  status.describe(), data_file.string(), script.string(),
                                                  data_file.string(), tail_of_file(ahead->log(), 20)));
}

}  // namespace grader
