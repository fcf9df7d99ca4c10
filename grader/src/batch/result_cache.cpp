#include "batch/result_cache.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>

#include "report/formats.hpp"
#include "report/report_json.hpp"
#include "system/atomic_file.hpp"
#include "system/process.hpp"
#include "system/sha256.hpp"

namespace grader {

namespace {
using nlohmann::json;

constexpr const char* key_file = "key";
constexpr const char* outcome_file = "outcome.json";
constexpr const char* text_file = "report.txt";
constexpr const char* json_file = "report.json";
constexpr const char* gradescope_file = "results.json";

// "<length>:<bytes>": a field whose end is never in doubt.
void add_field(sha256& hash, std::string_view bytes) {
    hash.update(fmt::format("{}:", bytes.size())).update(bytes);
}

// FNV-1a: only tells apart names that folder_name_for made alike, so it needs
// no cryptographic library (the folder names must not depend on one).
std::uint32_t fnv1a(const std::string& s) {
    std::uint32_t h = 2166136261u;
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
    return h;
}

bool safe_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '@' || c == '+';
}

// Strings from student files may hold bytes that are not UTF-8; a report is
// still written, with those bytes replaced.
std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

json outcome_json(const batch_result& r) {
    const bool graded = r.state() != batch_result::outcome::not_graded;
    return {{"student", r.student},
            {"email", r.email},
            {"sid", r.sid},
            {"state", to_string(r.state())},
            {"build_failed", r.build_failed},
            {"build_error", r.build_error},
            // The reason is kept in words: the report it may come from is not kept.
            {"not_graded", graded ? "" : r.not_graded_reason()},
            {"worker", r.worker},
            {"problems", r.problems},
            {"sandboxed", r.sandboxed}};
}

// What a student reads when nothing was graded: why, and that it is not a zero.
std::string not_graded_text(const batch_result& r) {
    std::string text = fmt::format("{}: not graded: {}.\nThis is not a score of zero: the submission will be "
                                   "graded again.\n",
                                   r.student, r.not_graded_reason());
    for (const auto& p : r.problems) text += "note: " + p + "\n";
    return text;
}

std::string build_failure_text(const batch_result& r) {
    std::string text = r.build_error.empty() ? "the code did not compile, so no tests ran.\n" : r.build_error;
    if (!text.empty() && text.back() != '\n') text += "\n";
    for (const auto& p : r.problems) text += "note: " + p + "\n";
    return text;
}
}  // namespace

std::string student_report_text(const batch_result& r) {
    switch (r.state()) {
        case batch_result::outcome::not_graded: return not_graded_text(r);
        case batch_result::outcome::build_failed: return build_failure_text(r);
        case batch_result::outcome::graded: break;
    }
    return r.report ? format_text(*r.report, {false, true, true, 0}) : not_graded_text(r);
}

std::string content_key(const std::string& lesson_id, const std::string& course_commit,
                        const std::map<std::string, std::string>& files) {
    sha256 hash;
    hash.update("course-batch-key/1\n");  // a new layout of the key bytes gets a new version
    add_field(hash, lesson_id);
    add_field(hash, course_commit);
    hash.update(fmt::format("{} files\n", files.size()));
    for (const auto& [name, content] : files) {  // std::map: in name order
        add_field(hash, name);
        add_field(hash, content);
    }
    return hash.hex_digest();
}

std::string folder_name_for(const std::string& student) {
    constexpr std::size_t max_length = 80;  // leaves room under any file system's 255-byte limit
    std::string name;
    for (unsigned char c : student) name += safe_char(c) ? static_cast<char>(c) : '_';
    if (!name.empty() && name.front() == '.') name.front() = '_';  // no hidden folders, no "." or ".."
    if (name.size() > max_length) name.resize(max_length);
    if (name.empty() || name != student) name += fmt::format("-{:08x}", fnv1a(student));
    return name;
}

result_cache::result_cache(fs::path root) : root_(std::move(root)) {}

fs::path result_cache::folder_of(const std::string& student) const { return root_ / folder_name_for(student); }

bool result_cache::is_done(const std::string& student, const std::string& key) const {
    const fs::path folder = folder_of(student);
    std::string stored = file_text(folder / key_file);
    while (!stored.empty() && (stored.back() == '\n' || stored.back() == '\r')) stored.pop_back();
    if (stored.empty() || stored != key) return false;
    for (const char* name : {outcome_file, text_file, json_file, gradescope_file})
        if (!fs::is_regular_file(folder / name)) return false;
    return true;
}

void result_cache::store(const batch_result& r, const std::string& key) const {
    const fs::path folder = folder_of(r.student);
    // The old key goes first: until the new one is written, the folder grades
    // nothing, so an interruption can never pair old files with a new key.
    std::error_code ignored;
    fs::remove(folder / key_file, ignored);

    const auto state = r.state();
    if (state == batch_result::outcome::not_graded) {
        fs::remove(folder / json_file, ignored);
        fs::remove(folder / gradescope_file, ignored);
        write_file_atomically(folder / text_file, student_report_text(r));
        write_file_atomically(folder / outcome_file, dump(outcome_json(r)));
        return;  // no key: the next run grades it again
    }
    if (!r.report)
        throw std::logic_error(fmt::format("result_cache::store: a {} result for {} needs its report",
                                           to_string(state), r.student));
    write_file_atomically(folder / text_file, student_report_text(r));
    write_file_atomically(folder / json_file, format_json(*r.report));
    write_file_atomically(folder / gradescope_file, format_gradescope(*r.report));
    write_file_atomically(folder / outcome_file, dump(outcome_json(r)));
    // (A submission whose GPU tests were skipped for want of a GPU is not
    // graded: stored above, without a key.) One graded without the sandbox
    // (--no-sandbox) is not final either: no key, so that a run where
    // bubblewrap runs grades it again, sandboxed.
    if (!r.sandboxed) return;
    write_file_atomically(folder / key_file, key + "\n");
}

std::optional<fs::file_time_type> result_cache::written_at(const std::string& student) const {
    std::error_code ec;
    const auto time = fs::last_write_time(folder_of(student) / outcome_file, ec);  // outcome.json: written by every store()
    if (ec) return std::nullopt;
    return time;
}

std::optional<batch_result> result_cache::load(const std::string& student) const {
    const fs::path folder = folder_of(student);
    const std::string outcome_text = file_text(folder / outcome_file);
    if (outcome_text.empty()) return std::nullopt;
    try {
        const json j = json::parse(outcome_text);
        batch_result r;
        r.student = j.value("student", student);
        r.email = j.value("email", "");
        r.sid = j.value("sid", "");
        r.build_failed = j.value("build_failed", false);
        r.build_error = j.value("build_error", "");
        r.not_graded = j.value("not_graded", "");
        r.worker = j.value("worker", "");
        r.problems = j.value("problems", std::vector<std::string>{});
        if (const std::string report = file_text(folder / json_file); !report.empty())
            r.report = report_from_json(report);
        // Results stored before outcome.json said so: the report's note says it.
        r.sandboxed = j.contains("sandboxed") ? j["sandboxed"].get<bool>()
                      : !r.report || std::none_of(r.report->notes.begin(), r.report->notes.end(), [](const auto& n) {
                            return n.rfind("NOT SANDBOXED", 0) == 0;
                        });
        if (r.student != student) return std::nullopt;  // another student's folder name: not ours
        return r;
    } catch (const std::exception&) {
        return std::nullopt;  // a damaged folder is graded again rather than trusted
    }
}

}  // namespace grader
