#include "batch/lms_export.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "batch/gradebook.hpp"
#include "batch/result_cache.hpp"
#include "system/atomic_file.hpp"
#include "system/process.hpp"
#include "system/user_error.hpp"

namespace grader {

namespace fs = std::filesystem;

namespace {

constexpr const char* roster_copy = "roster.csv";
constexpr const char* settings_file = "settings.json";
constexpr const char* not_in_roster_words = "not in the roster";

std::string html_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::optional<int> lesson_max(const std::vector<batch_result>& results) {
    std::optional<int> max;
    for (const auto& r : results)
        if (r.report) max = std::max(max.value_or(0), r.report->max_score());
    return max;
}

std::string out_of(std::optional<int> max_score) { return max_score ? fmt::format(" of {}", *max_score) : ""; }

// What the student's total came to, in words: "42 of 60 points", "not graded: why".
std::string total_words(const lms_student& s, std::optional<int> max_score) {
    if (!s.total) return "not graded: " + s.result->not_graded_reason() + " (not a zero: it will be graded again)";
    if (s.result->state() == batch_result::outcome::build_failed)
        return fmt::format("0{} points: the code did not compile, so no tests ran", out_of(max_score));
    return fmt::format("{}{} points", *s.total, out_of(max_score));
}

// Moodle's feedback: one line, the total and the tests that lost points.
std::string short_feedback(const lms_student& s, std::optional<int> max_score) {
    std::string text = total_words(s, max_score);
    if (s.total && s.result->state() == batch_result::outcome::graded && s.result->report) {
        std::vector<std::string> lost;
        for (const auto& t : s.result->report->tests)
            if (t.score() < t.points && t.status != test_status::skipped) lost.push_back(t.id);
        if (!lost.empty()) text += fmt::format("; points lost in {}; the feedback file says why", fmt::join(lost, ", "));
    }
    return text + ".";
}

std::string who(const lms_student& s) {
    return s.name == s.id || s.name.empty() ? s.id : fmt::format("{} ({})", s.name, s.id);
}

}  // namespace

void keep_lms_settings(const fs::path& out, const std::optional<fs::path>& roster_file, const std::string& column) {
    const fs::path folder = out / "lms";
    if (roster_file) {
        read_roster(*roster_file);  // a bad roster stops the batch before anything is graded
        write_file_atomically(folder / roster_copy, file_text(*roster_file));
    }
    if (!column.empty()) write_file_atomically(folder / settings_file, nlohmann::json{{"column", column}}.dump(2) + "\n");
}

lms_settings kept_lms_settings(const fs::path& out) {
    lms_settings settings;
    const fs::path folder = out / "lms";
    std::error_code ec;
    if (fs::is_regular_file(folder / roster_copy, ec))
        settings.class_roster = parse_roster(file_text(folder / roster_copy), (folder / roster_copy).string());
    if (const std::string text = file_text(folder / settings_file); !text.empty()) {
        try {
            settings.column = nlohmann::json::parse(text).value("column", "");
        } catch (const std::exception&) {
        }
    }
    return settings;
}

std::vector<lms_student> lms_students(const std::vector<batch_result>& results, const roster* class_roster) {
    std::vector<const batch_result*> rows;
    for (const auto& r : results) rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(), [](auto a, auto b) { return a->student < b->student; });
    std::vector<lms_student> out;
    for (const batch_result* r : rows) {
        lms_student s;
        s.result = r;
        s.sis_user_id = r->sid;
        if (const roster_entry* e = class_roster ? class_roster->find(r->student) : nullptr) {
            s.id = e->id;
            s.name = e->name.empty() ? r->student : e->name;
            s.section = e->section;
        } else {
            s.in_roster = class_roster == nullptr;
            s.id = class_roster || r->email.empty() ? r->student : r->email;
            s.name = r->student;
        }
        switch (r->state()) {
            case batch_result::outcome::not_graded: break;
            case batch_result::outcome::build_failed: s.total = 0; break;
            case batch_result::outcome::graded: s.total = r->report ? r->report->score() : 0; break;
        }
        s.feedback_name = folder_name_for(s.id);
        out.push_back(std::move(s));
    }
    return out;
}

std::string format_canvas_csv(const std::vector<lms_student>& students, const std::string& column,
                              std::optional<int> max_score) {
    std::vector<std::string> header(std::begin(canvas_student_columns), std::end(canvas_student_columns));
    header.push_back(column);
    std::string csv = csv_line(header);
    // Canvas's export has it (its name indented, the student columns empty).
    csv += csv_line({"    Points Possible", "", "", "", "", max_score ? std::to_string(*max_score) : ""});
    for (const auto& s : students) {
        const std::string student = s.in_roster ? s.name : fmt::format("{} ({})", s.name, not_in_roster_words);
        csv += csv_line({student, "", s.sis_user_id, s.id, s.section, s.total ? std::to_string(*s.total) : ""});
    }
    return csv;
}

std::string format_moodle_csv(const std::vector<lms_student>& students, const std::string& column,
                              std::optional<int> max_score) {
    const bool emails = !students.empty() && std::all_of(students.begin(), students.end(), [](const auto& s) {
        return s.id.find('@') != std::string::npos;
    });
    std::string csv = csv_line({emails ? "Email address" : "Username", "Full name", column, "Feedback", "Note"});
    for (const auto& s : students) {
        std::vector<std::string> notes;
        if (!s.in_roster) notes.push_back(fmt::format("{}: the folder's name stands in for the identifier",
                                                      not_in_roster_words));
        if (s.total && !s.result->sandboxed) notes.push_back("NOT SANDBOXED");
        notes.insert(notes.end(), s.result->problems.begin(), s.result->problems.end());
        csv += csv_line({s.id, s.name, s.total ? std::to_string(*s.total) : "", short_feedback(s, max_score),
                         fmt::format("{}", fmt::join(notes, "; "))});
    }
    return csv;
}

std::string feedback_text(const lms_student& s, const std::string& lesson_id, const std::string& title,
                          std::optional<int> max_score) {
    std::string text = fmt::format("{} · {}: feedback for {}\n{}\n\n", lesson_id, title, who(s), total_words(s, max_score));
    text += student_report_text(*s.result);
    if (!text.empty() && text.back() != '\n') text += "\n";
    return text;
}

std::string feedback_html(const lms_student& s, const std::string& lesson_id, const std::string& title,
                          std::optional<int> max_score) {
    const auto e = html_escape;
    std::string page = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0} · {1}: {2}</title>"
        "<style>body{{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222}}"
        "table{{border-collapse:collapse}}td,th{{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}}"
        ".passed{{color:#176f2c}}.lost{{color:#a4161a}}pre{{background:#f6f6f6;padding:1em;overflow-x:auto;"
        "white-space:pre-wrap}}</style></head><body>\n<h1>{0} · {1}</h1>\n<p>Feedback for {2}</p>\n"
        "<p><b>{3}</b></p>\n",
        e(lesson_id), e(title), e(who(s)), e(total_words(s, max_score)));
    const batch_result& r = *s.result;
    if (r.state() == batch_result::outcome::graded && r.report && !r.report->tests.empty()) {
        page += "<table><thead><tr><th></th><th>test</th><th>what it checks</th><th>points</th></tr></thead><tbody>\n";
        for (const auto& t : r.report->tests) {
            const bool passed = t.status == test_status::passed;
            page += fmt::format("<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td><td>{} of {}</td></tr>\n",
                                passed ? "passed" : "lost", passed ? "✓" : "✗", e(t.id), e(t.title), t.score(), t.points);
        }
        page += "</tbody></table>\n";
    }
    page += fmt::format("<h2>The report</h2>\n<pre>{}</pre>\n</body></html>\n", e(student_report_text(r)));
    return page;
}

lms_outputs write_lms_outputs(const fs::path& out, const std::string& lesson_id, const std::string& title,
                              const std::vector<batch_result>& results, const lms_settings& settings) {
    const roster* class_roster = settings.class_roster ? &*settings.class_roster : nullptr;
    const std::vector<lms_student> students = lms_students(results, class_roster);
    const std::optional<int> max_score = lesson_max(results);
    const std::string column = settings.column.empty() ? lesson_id : settings.column;

    lms_outputs written{out / "lms" / "canvas.csv", out / "lms" / "moodle.csv", out / "feedback", {}, {}};
    write_file_atomically(written.canvas, format_canvas_csv(students, column, max_score));
    write_file_atomically(written.moodle, format_moodle_csv(students, column, max_score));
    std::error_code ec;
    fs::remove_all(written.feedback, ec);  // an earlier class's files would be handed out too
    for (const auto& s : students) {
        write_file_atomically(written.feedback / (s.feedback_name + ".txt"), feedback_text(s, lesson_id, title, max_score));
        write_file_atomically(written.feedback / (s.feedback_name + ".html"), feedback_html(s, lesson_id, title, max_score));
        if (!s.in_roster) written.not_in_roster.push_back(s.result->student);
    }
    if (class_roster) {
        std::set<std::string> submitted;
        for (const auto& r : results) submitted.insert(r.student);
        for (const auto& entry : class_roster->entries)
            if (!submitted.count(entry.folder)) written.without_submission.push_back(entry.folder);
    }
    return written;
}

}  // namespace grader
