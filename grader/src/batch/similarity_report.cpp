#include "batch/similarity_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>

#include "batch/course_versions.hpp"

namespace grader {

namespace {
using nlohmann::json;

const char* kind_name(source_kind kind) {
    switch (kind) {
        case source_kind::student: return "student";
        case source_kind::reference: return "reference";
        case source_kind::textbook: return "textbook";
        case source_kind::known_wrong: return "known_wrong";
        case source_kind::cheat: return "cheat";
    }
    return "student";
}

json ranges_json(const std::vector<line_range>& ranges) {
    json out = json::array();
    for (const auto& r : ranges) out.push_back({{"file", r.file}, {"first", r.first}, {"last", r.last}});
    return out;
}

// " in events.cu" for a pair flagged file by file; nothing for a whole one.
std::string in_file(const similar_pair& p) { return p.file.empty() ? "" : " in " + p.file; }

// 0.934 -> 93: a flag's figure is a whole percentage, rounded down, so that
// 59.9% never reads as the 60% threshold it missed.
int percent(double share) { return static_cast<int>(std::floor(share * 100 + 1e-9)); }

}  // namespace

std::string describe_source(source_kind kind, const std::string& name) {
    switch (kind) {
        case source_kind::student: return name;
        case source_kind::reference: return "the reference solution";
        case source_kind::textbook: return "the textbook form " + name;
        case source_kind::known_wrong: return "the known-wrong version " + name;
        case source_kind::cheat: return "the known cheat " + name;
    }
    return name;
}

std::string describe_lines(const std::vector<line_range>& ranges) {
    std::vector<std::string> files;
    std::string current;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const auto& r = ranges[i];
        const std::string span = r.first == r.last ? std::to_string(r.first) : fmt::format("{}-{}", r.first, r.last);
        if (i == 0 || ranges[i - 1].file != r.file) {
            const bool one = i + 1 == ranges.size() || ranges[i + 1].file != r.file ? r.first == r.last : false;
            files.push_back(fmt::format("{} line{} {}", r.file, one ? "" : "s", span));
        } else {
            files.back() += ", " + span;
        }
    }
    return fmt::format("{}", fmt::join(files, "; "));
}

class_similarity compare_class(const manifest& m, const lesson_info& lesson,
                               const std::vector<const submission*>& students, const similarity_settings& settings) {
    const auto started = std::chrono::steady_clock::now();
    class_similarity result;
    result.settings = settings;
    result.students = students.size();
    const lesson_skeleton skeleton = read_lesson_skeleton(m, lesson);
    const std::vector<similarity_document> versions = read_course_versions(m, lesson, skeleton);
    for (const auto& v : versions) result.compared_with.push_back(describe_source(v.kind, v.name));
    std::vector<similarity_document> docs;
    for (const submission* s : students) docs.push_back(make_document(s->student, source_kind::student, s->files, skeleton));
    result.pairs = find_similar_pairs(docs, versions, settings);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

std::optional<class_similarity> compare_class_if_asked(const manifest& m, const lesson_info& lesson,
                                                       const std::vector<const submission*>& students,
                                                       std::optional<double> threshold) {
    if (!threshold) return std::nullopt;
    similarity_settings settings;
    settings.threshold = *threshold;
    return compare_class(m, lesson, students, settings);
}

json similarity_json(const class_similarity& result) {
    json pairs = json::array();
    for (const auto& p : result.pairs)
        pairs.push_back({{"student", p.a},
                         {"other", p.b},
                         {"other_kind", kind_name(p.b_kind)},
                         {"other_is", describe_source(p.b_kind, p.b)},
                         {"file", p.file},
                         {"similarity", p.similarity},
                         {"share_of_student", p.share_a},
                         {"share_of_other", p.share_b},
                         {"matched_tokens_student", p.matched_a},
                         {"matched_tokens_other", p.matched_b},
                         {"lines_student", ranges_json(p.lines_a)},
                         {"lines_other", ranges_json(p.lines_b)},
                         {"excerpt_student", p.excerpt_a}});
    const auto& s = result.settings;
    return {{"schema", "course-similarity/1"},
            {"threshold", s.threshold},
            {"k_tokens", s.k},
            {"window", s.window},
            {"min_matched_tokens", s.min_matched_tokens},
            {"file_threshold", s.file_threshold},
            {"min_file_matched_tokens", s.min_file_matched_tokens},
            {"students", result.students},
            {"compared_with", result.compared_with},
            {"seconds", result.seconds},
            {"pairs", pairs}};
}

json similarity_report_data(const class_similarity& result, std::size_t max_pairs) {
    json pairs = json::array();
    for (std::size_t i = 0; i < result.pairs.size() && i < max_pairs; ++i) {
        const auto& p = result.pairs[i];
        pairs.push_back({{"student", p.a},
                         {"other", describe_source(p.b_kind, p.b) + in_file(p)},
                         {"other_kind", kind_name(p.b_kind)},
                         {"file", p.file},
                         {"similarity", p.similarity},
                         {"percent", percent(p.similarity)},
                         {"lines_student", describe_lines(p.lines_a)},
                         {"lines_other", describe_lines(p.lines_b)},
                         {"excerpt", p.excerpt_a}});
    }
    return {{"threshold", result.settings.threshold},
            {"min_matched_tokens", result.settings.min_matched_tokens},
            {"students", result.students},
            {"compared_with", result.compared_with.size()},
            {"pairs_total", result.pairs.size()},
            {"pairs", pairs}};
}

std::map<std::string, std::string> similarity_flags(const class_similarity& result, std::size_t max_per_student) {
    std::map<std::string, std::vector<std::string>> words;  // pairs are most similar first already
    const auto add = [&](const std::string& student, const std::string& other, const similar_pair& p,
                         const std::vector<line_range>& lines) {
        words[student].push_back(
            fmt::format("{} {}%{} ({})", other, percent(p.similarity), in_file(p), describe_lines(lines)));
    };
    for (const auto& p : result.pairs) {
        add(p.a, describe_source(p.b_kind, p.b), p, p.lines_a);
        if (p.b_kind == source_kind::student) add(p.b, p.a, p, p.lines_b);
    }
    std::map<std::string, std::string> flags;
    for (auto& [student, list] : words) {
        const std::size_t more = list.size() > max_per_student ? list.size() - max_per_student : 0;
        list.resize(list.size() - more);
        flags[student] = fmt::format("similar to {}{}", fmt::join(list, "; "),
                                     more ? fmt::format("; and {} more (similarity.json)", more) : "");
    }
    return flags;
}

}  // namespace grader
