#include "checkout/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace grader {

manifest open_build(const std::optional<fs::path>& build_dir) {
    const auto dir = find_build_dir(build_dir);
    if (!dir) {
        if (build_dir)
            throw user_error(build_error, fmt::format("{} is not a configured build folder (no course_manifest.json).\n"
                                                      "Configure it first: cmake --preset default", build_dir->string()));
        throw user_error(build_error,
                         "no build folder found. From the course's top folder run ./setup.sh\n"
                         "(or: cmake --preset default && cmake --build build), or pass --build-dir.");
    }
    try {
        return load_manifest(*dir);
    } catch (const std::exception& e) {
        throw user_error(build_error, fmt::format("{}: {}\nReconfigure: cmake --preset default", dir->string(), e.what()));
    }
}

const lesson_info& find_lesson(const manifest& m, const std::string& name) {
    if (const lesson_info* lesson = m.find(name)) return *lesson;
    // Every name of every lesson may be the one meant; each lesson is suggested once.
    std::vector<std::string> names;
    std::map<std::string, const lesson_info*> lesson_of;
    for (const auto& lesson : m.lessons) {
        std::vector<std::string> its = {lesson.id, lesson.slug, lesson.dir};
        its.insert(its.end(), lesson.aliases.begin(), lesson.aliases.end());
        for (const auto& n : its)
            if (lesson_of.emplace(n, &lesson).second) names.push_back(n);
    }
    std::vector<std::string> meant;
    for (const auto& n : close_matches(name, names, names.size())) {
        const lesson_info& lesson = *lesson_of.at(n);
        const std::string shown = fmt::format("{} ({})", lesson.id, lesson.slug);
        if (std::find(meant.begin(), meant.end(), shown) == meant.end()) meant.push_back(shown);
    }
    if (meant.size() > 3) meant.clear();  // "lesson": no more use than the list of them all
    throw user_error(usage_error, fmt::format("unknown lesson '{}'{} Valid lessons: {}.\n"
                                              "A lesson can be named lesson01, 1 or vecadd.",
                                              name, meant.empty() ? "." : "; " + did_you_mean(meant),
                                              m.valid_names()));
}

namespace {

std::string lowercase(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Letters added, dropped, changed, or two neighbours swapped (the optimal
// string alignment distance).
std::size_t typo_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), k = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(k + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= k; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= k; ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][k];
}

}  // namespace

std::vector<std::string> close_matches(const std::string& typed, const std::vector<std::string>& known,
                                       std::size_t most) {
    const std::string t = lowercase(typed);
    if (t.empty()) return {};
    // Up to a typo per four letters, at least one and at most three.
    const std::size_t allowed = std::clamp<std::size_t>(t.size() / 4, 1, 3);
    std::vector<std::tuple<std::size_t, std::size_t, std::string>> found;  // (rank, order, name)
    for (std::size_t i = 0; i < known.size(); ++i) {
        const std::string k = lowercase(known[i]);
        std::size_t rank = typo_distance(t, k);
        bool near = rank <= allowed;
        // A test's name after its suite's ("Empty" for "VecAdd.Empty"), or
        // the start of either: those come after the typos.
        const auto dot = k.rfind('.');
        const std::string last = dot == std::string::npos ? k : k.substr(dot + 1);
        if (last == t) {
            near = true;
            rank = std::min(rank, allowed + 1);
        }
        if (t.size() >= 3 && (k.rfind(t, 0) == 0 || last.rfind(t, 0) == 0)) {
            near = true;
            rank = std::min(rank, allowed + 2);
        }
        if (near) found.emplace_back(rank, i, known[i]);
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (const auto& [rank, order, name] : found) {
        if (out.size() == most) break;
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    return out;
}

std::string did_you_mean(const std::vector<std::string>& matches) {
    if (matches.empty()) return "";
    if (matches.size() == 1) return fmt::format("did you mean {}?", matches.front());
    return fmt::format("did you mean {} or {}?",
                       fmt::join(matches.begin(), matches.end() - 1, ", "), matches.back());
}

std::string student_edition_lacks(const std::string& lesson, const std::string& variant_name) {
    const auto starts = [&](const std::string& prefix) { return variant_name.rfind(prefix, 0) == 0; };
    const char* const what = variant_name == "solution" ? "--solution: the student edition has no reference solution"
                             : starts("mutant_")        ? "--mutant: the student edition has no known-wrong versions"
                             : starts("cheat_")         ? "--cheat: the student edition has no cheats"
                             : starts("textbook_")      ? "--textbook: the student edition has no textbook forms"
                                                        : nullptr;
    if (!what) return "";
    return fmt::format("{} ({} the instructor's); `grader run {}` grades your own", what,
                       variant_name == "solution" ? "it is" : "they are", lesson);
}

void check_output_path(const manifest& m, const fs::path& output) {
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(fs::absolute(output), ec);
    for (const char* protected_dir : {"exercises", "solutions", "lessons", "common", "grader"}) {
        const fs::path dir = fs::weakly_canonical(m.source_dir / protected_dir, ec);
        const auto rel = target.lexically_relative(dir);
        if (!rel.empty() && *rel.begin() != "..")
            throw user_error(usage_error, fmt::format("refusing to write {}: it is inside the course's {}/ folder. "
                                                      "Choose another path for -o.", output.string(), protected_dir));
    }
}

}  // namespace grader
