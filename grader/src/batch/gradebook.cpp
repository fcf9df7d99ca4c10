#include "batch/gradebook.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>

#include "system/atomic_file.hpp"

namespace grader {

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 when there is none
// (a stray continuation byte, a truncated or overlong sequence, a surrogate).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80) return 1;
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || (c >= 0xF5) || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
    const unsigned char c1 = byte(i + 1);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))
        return 0;
    return n;
}

std::string as_utf8(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence(s, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD, the replacement character
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

// The test ids of every report, in the order the lesson lists them (the
// order of first appearance: every report of one lesson lists them alike).
std::vector<std::string> test_columns(const std::vector<batch_result>& rows) {
    std::vector<std::string> ids;
    for (const auto& r : rows)
        if (r.report)
            for (const auto& t : r.report->tests)
                if (std::find(ids.begin(), ids.end(), t.id) == ids.end()) ids.push_back(t.id);
    return ids;
}

std::string note_for(const batch_result& r) {
    std::vector<std::string> parts;
    const auto state = r.state();
    switch (state) {
        case batch_result::outcome::not_graded: parts.push_back("not graded: " + r.not_graded_reason()); break;
        case batch_result::outcome::build_failed: parts.push_back("did not compile: no tests ran"); break;
        case batch_result::outcome::graded:
            // A test this GPU cannot run (lesson05's overlap with one copy engine) earns nothing here.
            if (const int skipped = r.report->count(test_status::skipped); skipped > 0)
                parts.push_back(fmt::format("{} test{} skipped on this GPU", skipped, skipped == 1 ? "" : "s"));
            break;
    }
    if (state != batch_result::outcome::not_graded && !r.sandboxed)
        parts.push_back("NOT SANDBOXED: the student's code ran with the grader's rights");
    parts.insert(parts.end(), r.problems.begin(), r.problems.end());
    return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string csv_field(std::string_view text) {
    std::string value = as_utf8(text);
    if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
    std::string quoted = "\"";
    for (char c : value) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
    std::string out;
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
    return out + "\r\n";
}

std::string format_gradebook_csv(const std::vector<batch_result>& results,
                                 const std::map<std::string, std::string>& similarity) {
    std::vector<const batch_result*> rows;
    for (const auto& r : results) rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(), [](auto a, auto b) { return a->student < b->student; });

    const std::vector<std::string> tests = test_columns(results);
    const bool identities = std::any_of(results.begin(), results.end(),
                                        [](const auto& r) { return !r.email.empty() || !r.sid.empty(); });
    // The lesson's: every report of it has the same tests. Unknown (empty)
    // when no report came back at all.
    std::optional<int> lesson_max;
    for (const auto& r : results)
        if (r.report) lesson_max = std::max(lesson_max.value_or(0), r.report->max_score());
    const std::string max_score = lesson_max ? std::to_string(*lesson_max) : "";

    std::vector<std::string> header = {"student"};
    if (identities) header.insert(header.end(), {"email", "sid"});
    header.insert(header.end(), {"score", "max_score"});
    header.insert(header.end(), tests.begin(), tests.end());
    header.push_back("note");
    if (!similarity.empty()) header.push_back("similarity");

    std::string csv = csv_line(header);
    for (const batch_result* r : rows) {
        std::vector<std::string> fields = {r->student};
        if (identities) fields.insert(fields.end(), {r->email, r->sid});
        const auto state = r->state();
        if (state == batch_result::outcome::not_graded) {
            fields.insert(fields.end(), {"", max_score});
            fields.insert(fields.end(), tests.size(), "");
        } else {
            std::map<std::string, const graded_test*> by_id;
            if (r->report)
                for (const auto& t : r->report->tests) by_id[t.id] = &t;
            const int score = state == batch_result::outcome::build_failed || !r->report ? 0 : r->report->score();
            fields.insert(fields.end(), {std::to_string(score), max_score});
            for (const auto& id : tests) {
                const auto it = by_id.find(id);
                if (state == batch_result::outcome::build_failed) fields.push_back("0");
                else if (it == by_id.end() || it->second->status == test_status::skipped) fields.push_back("");
                else fields.push_back(std::to_string(it->second->score()));
            }
        }
        fields.push_back(note_for(*r));
        if (!similarity.empty()) {
            const auto flag = similarity.find(r->student);
            fields.push_back(flag == similarity.end() ? "" : flag->second);
        }
        csv += csv_line(fields);
    }
    return csv;
}

void write_gradebook(const std::filesystem::path& file, const std::vector<batch_result>& results,
                     const std::map<std::string, std::string>& similarity) {
    write_file_atomically(file, format_gradebook_csv(results, similarity));
}

}  // namespace grader
