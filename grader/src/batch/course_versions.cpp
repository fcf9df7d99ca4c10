#include "batch/course_versions.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "batch/similarity_tokens.hpp"

namespace grader {

namespace {

std::optional<std::string> read_text(const fs::path& file) {
    std::ifstream in{file, std::ios::binary};
    if (!in) return {};  // missing or unreadable
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

fs::path variant_dir(const manifest& m, const lesson_info& lesson, const std::string& variant, const char* folder) {
    if (const variant_info* v = lesson.variant(variant); v && !v->source_dir.empty()) return v->source_dir;
    return m.source_dir / folder / lesson.dir;
}

bool is_source_file(const fs::path& p) {
    const std::string ext = p.extension().string();
    return ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".cc";
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
}

struct hunk {
    int old_start = 0;  // from 1
    std::vector<std::string> before, after;
};

// Where `h` applies in `lines`: at its line number moved by what the hunks
// before it changed, else the nearest place its old lines are found.
std::optional<std::size_t> place_of(const hunk& h, const std::vector<std::string>& lines, long shift) {
    const auto fits = [&](long at) {
        if (at < 0 || static_cast<std::size_t>(at) + h.before.size() > lines.size()) return false;
        return std::equal(h.before.begin(), h.before.end(), lines.begin() + at);
    };
    const long expected = std::max(0L, h.old_start - 1 + shift);
    for (long d = 0; d <= static_cast<long>(lines.size()); ++d) {
        if (fits(expected - d)) return static_cast<std::size_t>(expected - d);
        if (fits(expected + d)) return static_cast<std::size_t>(expected + d);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::map<std::string, std::string>> apply_unified_diff(std::map<std::string, std::string> files,
                                                                     const std::string& patch) {
    std::map<std::string, std::vector<hunk>> hunks;  // file -> its hunks, in order
    std::string file;
    for (const std::string& line : lines_of(patch)) {
        if (line.rfind("+++ ", 0) == 0) {
            file = line.substr(4, line.find('\t') == std::string::npos ? std::string::npos : line.find('\t') - 4);
            if (file.rfind("b/", 0) == 0) file = file.substr(2);
        } else if (line.rfind("--- ", 0) == 0) {
            continue;
        } else if (line.rfind("@@ -", 0) == 0) {
            hunks[file].push_back({std::atoi(line.c_str() + 4), {}, {}});
        } else if (!hunks[file].empty() && !line.empty() && (line[0] == ' ' || line[0] == '-' || line[0] == '+')) {
            hunk& h = hunks[file].back();
            if (line[0] != '+') h.before.push_back(line.substr(1));
            if (line[0] != '-') h.after.push_back(line.substr(1));
        } else if (!hunks[file].empty() && line.empty()) {  // an empty context line whose space was trimmed
            hunks[file].back().before.emplace_back();
            hunks[file].back().after.emplace_back();
        }
    }
    for (const auto& [name, changes] : hunks) {
        if (changes.empty()) continue;
        const auto it = files.find(name);
        if (it == files.end()) return std::nullopt;
        std::vector<std::string> lines = lines_of(it->second);
        long shift = 0;
        for (const hunk& h : changes) {
            const auto at = place_of(h, lines, shift);
            if (!at) return std::nullopt;
            lines.erase(lines.begin() + static_cast<long>(*at), lines.begin() + static_cast<long>(*at + h.before.size()));
            lines.insert(lines.begin() + static_cast<long>(*at), h.after.begin(), h.after.end());
            shift += static_cast<long>(h.after.size()) - static_cast<long>(h.before.size());
        }
        it->second = joined(lines);
    }
    return files;
}

lesson_skeleton read_lesson_skeleton(const manifest& m, const lesson_info& lesson) {
    lesson_skeleton s;
    s.sources = lesson.sources;
    const fs::path dir = variant_dir(m, lesson, "exercise", "exercises");
    std::vector<std::string> texts;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec) || !is_source_file(entry.path())) continue;
        if (auto text = read_text(entry.path())) texts.push_back(*text);
    }
    for (const auto& source : lesson.sources)
        if (auto text = read_text(dir / source)) s.files[source] = *text;
    s.names = skeleton_names(texts);
    return s;
}

std::vector<similarity_document> read_course_versions(const manifest& m, const lesson_info& lesson,
                                                      const lesson_skeleton& skeleton) {
    const fs::path solution_dir = variant_dir(m, lesson, "solution", "solutions");
    std::map<std::string, std::string> solution;
    for (const auto& source : lesson.sources)
        if (auto text = read_text(solution_dir / source)) solution[source] = *text;
    if (solution.empty()) return {};  // the student edition

    std::vector<similarity_document> versions;
    versions.push_back(make_document("solution", source_kind::reference, solution, skeleton));
    const struct {
        const char* folder;
        const char* patch;
        source_kind kind;
    } banks[] = {{"textbooks", "textbook.patch", source_kind::textbook},
                 {"mutants", "mistake.patch", source_kind::known_wrong},
                 {"cheats", "cheat.patch", source_kind::cheat}};
    for (const auto& bank : banks) {
        const fs::path root = m.source_dir / "grader" / bank.folder / lesson.dir;
        std::vector<fs::path> folders;
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(root, ec))
            if (entry.is_directory(ec)) folders.push_back(entry.path());
        std::sort(folders.begin(), folders.end());
        for (const auto& folder : folders) {
            const auto patch = read_text(folder / bank.patch);
            if (!patch) continue;
            if (auto files = apply_unified_diff(solution, *patch))
                versions.push_back(make_document(folder.filename().string(), bank.kind, *files, skeleton));
        }
    }
    return versions;
}

}  // namespace grader
