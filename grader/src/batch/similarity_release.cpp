#include "batch/similarity_release.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>

#include "batch/similarity.hpp"
#include "batch/similarity_tokens.hpp"

namespace grader {

namespace fs = std::filesystem;

namespace {

std::string read_bytes(const fs::path& file) {
    std::ifstream in{file, std::ios::binary};
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Each regular file under `folder`, none inside a .git folder, sorted.
std::vector<fs::path> files_under(const fs::path& folder) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return files;
    for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->path().filename() == ".git") {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string squeezed(std::string_view line) {
    std::string out;
    for (char c : line)
        if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return out;
}

// A lesson as the check sees it: the names its skeleton gives (kept as
// themselves), the skeleton's lines (left out on both sides), and its
// solution files' k-grams.
struct solution_file {
    fs::path path;                             // relative to the full tree
    std::vector<similarity_token> tokens;      // own tokens
    std::vector<std::pair<int, int>> units;    // its definitions' lines, and {0, 0}: the whole file
};
struct lesson_fingerprints {
    std::set<std::string> names;
    std::set<std::string> skeleton_lines;      // squeezed
    std::vector<solution_file> files;
    std::unordered_map<std::uint64_t, std::vector<std::pair<std::size_t, std::size_t>>> grams;  // -> (file, token)
};

// A solution's tokens, or an edition form's, without those on the lesson's
// skeleton lines.
std::vector<similarity_token> own_tokens(const std::string& text, const lesson_fingerprints& lesson) {
    const std::vector<std::string> lines = lines_of(text);
    std::vector<char> skeletons(lines.size() + 1, 0);
    for (std::size_t i = 0; i < lines.size(); ++i) skeletons[i + 1] = lesson.skeleton_lines.count(squeezed(lines[i])) > 0;
    std::vector<similarity_token> out;
    for (const auto& t : tokenize_source(text, lesson.names))
        if (t.line < 1 || static_cast<std::size_t>(t.line) >= skeletons.size() || !skeletons[t.line]) out.push_back(t);
    return out;
}

// The k-gram hashes of `tokens`, one per start.
std::vector<std::uint64_t> grams_of(const std::vector<similarity_token>& tokens, std::size_t k) {
    std::vector<std::uint64_t> out;
    if (tokens.size() < k) return out;
    constexpr std::uint64_t base = 0x100000001b3ull;
    std::uint64_t top = 1;
    for (std::size_t i = 1; i < k; ++i) top *= base;
    std::uint64_t h = 0;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (i >= k) h -= tokens[i - k].hash * top;
        h = h * base + tokens[i].hash;
        if (i + 1 >= k) out.push_back(h);
    }
    return out;
}

bool is_source(const fs::path& p) {
    const std::string ext = p.extension().string();
    return ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".hpp" || ext == ".h" || ext == ".cc";
}

std::vector<lesson_fingerprints> read_lessons(const fs::path& full_tree, std::size_t k) {
    std::vector<lesson_fingerprints> lessons;
    std::vector<fs::path> folders;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(full_tree / "solutions", ec))
        if (entry.is_directory(ec)) folders.push_back(entry.path());
    std::sort(folders.begin(), folders.end());
    for (const auto& folder : folders) {
        lesson_fingerprints lesson;
        std::vector<std::string> skeleton_texts;
        for (const auto& file : files_under(full_tree / "exercises" / folder.filename())) {
            skeleton_texts.push_back(read_bytes(file));
            for (const auto& line : lines_of(skeleton_texts.back())) lesson.skeleton_lines.insert(squeezed(line));
        }
        std::vector<std::string> sources;
        for (std::size_t i = 0; i < skeleton_texts.size(); ++i) sources.push_back(skeleton_texts[i]);
        lesson.names = skeleton_names(sources);
        for (const auto& file : files_under(folder)) {
            if (!is_source(file)) continue;
            const std::string text = read_bytes(file);
            solution_file s{fs::relative(file, full_tree), own_tokens(text, lesson), definition_lines(text)};
            s.units.emplace_back(0, 0);
            const auto grams = grams_of(s.tokens, k);
            for (std::size_t t = 0; t < grams.size(); ++t) lesson.grams[grams[t]].push_back({lesson.files.size(), t});
            lesson.files.push_back(std::move(s));
        }
        lessons.push_back(std::move(lesson));
    }
    return lessons;
}

// One form of an edition file, as code: its text, and for each of its lines
// (from 1) the line of the file it is.
struct form {
    std::string name;  // "" (the file's text), "the new side of its diff", "cell 3"
    std::string text;
    std::vector<int> file_line;  // index: the form's line; 0 unused
};

std::vector<int> identity_lines(const std::string& text) {
    std::vector<int> out(lines_of(text).size() + 2);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int>(i);
    return out;
}

// A notebook's cells, each with its lines found in the notebook's text
// (JSON writes each line of a cell's source as one string, usually a line
// of its own). A notebook that is not JSON is read as text.
std::vector<form> notebook_forms(const std::string& text) {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("cells") || !doc["cells"].is_array()) return {};
    std::vector<int> line_starts{0};  // the offset where each line of `text` starts; index + 1 is its number
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') line_starts.push_back(static_cast<int>(i + 1));
    const auto line_at = [&](std::size_t offset) {
        return static_cast<int>(std::upper_bound(line_starts.begin(), line_starts.end(), static_cast<int>(offset)) -
                                line_starts.begin());
    };
    std::vector<form> out;
    std::size_t cursor = 0;
    int number = 0;
    for (const auto& cell : doc["cells"]) {
        ++number;
        if (!cell.is_object() || !cell.contains("source")) continue;
        std::vector<std::string> pieces;
        if (cell["source"].is_string()) pieces.push_back(cell["source"].get<std::string>());
        else if (cell["source"].is_array())
            for (const auto& piece : cell["source"])
                if (piece.is_string()) pieces.push_back(piece.get<std::string>());
        form f{fmt::format("cell {}", number), "", {0}};
        for (const auto& piece : pieces) {
            if (piece.empty()) continue;
            const std::string quoted = nlohmann::json(piece).dump();
            const auto at = text.find(quoted, cursor);
            const int line = at == std::string::npos ? line_at(cursor) : line_at(at);
            if (at != std::string::npos) cursor = at + quoted.size();
            // A piece is a line (its '\n' last), or several where a writer joined them.
            f.text += piece;
            if (piece.back() != '\n') f.text += '\n';
            const auto lines = std::count(f.text.end() - static_cast<long>(piece.size()) - (piece.back() != '\n'),
                                          f.text.end(), '\n');
            f.file_line.insert(f.file_line.end(), static_cast<std::size_t>(lines), line);
        }
        f.file_line.push_back(f.file_line.back());
        out.push_back(std::move(f));
    }
    return out;
}

// The sides of whatever diff a text holds: the new side keeps `+` lines
// (without their `+`) and drops `-` lines; the old side the other way. Every
// other line stays in both, and a dropped line stays as an empty one, so a
// line keeps its number. None when no line begins with `+` or `-`.
std::vector<form> diff_forms(const std::string& text) {
    const std::vector<std::string> lines = lines_of(text);
    const bool any = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
        return !l.empty() && (l[0] == '+' || l[0] == '-');
    });
    if (!any) return {};
    std::vector<form> out;
    for (const char kept : {'+', '-'}) {
        form f{kept == '+' ? "the new side of its diff" : "the old side of its diff", "", identity_lines(text)};
        for (const auto& l : lines) {
            if (!l.empty() && (l[0] == '+' || l[0] == '-')) f.text += l[0] == kept ? l.substr(1) : "";
            else f.text += l;
            f.text += '\n';
        }
        out.push_back(std::move(f));
    }
    return out;
}

// The forms of an edition file; none for a binary one.
std::vector<form> forms_of(const fs::path& file) {
    const std::string text = read_bytes(file);
    if (text.find('\0') != std::string::npos) return {};
    if (file.extension() == ".ipynb") {
        auto cells = notebook_forms(text);
        if (!cells.empty()) return cells;
    }
    auto sides = diff_forms(text);
    if (!sides.empty()) return sides;
    return {form{"", text, identity_lines(text)}};
}

// A form against one lesson: a leak per solution file it holds too much of.
// A form of an edition file, read against one lesson.
struct read_form {
    fs::path file;
    const form* f;
    std::vector<similarity_token> tokens;
    std::vector<std::uint64_t> grams;
};

// A form against one lesson: a leak per solution file it holds too much of.
void compare_form(const read_form& r, const lesson_fingerprints& lesson, std::size_t k, double max_share,
                  std::size_t min_tokens, std::vector<solution_leak>& leaks) {
    const fs::path& file = r.file;
    const form& f = *r.f;
    const std::vector<similarity_token>& tokens = r.tokens;
    const std::vector<std::uint64_t>& grams = r.grams;
    std::map<std::size_t, std::pair<std::vector<char>, std::vector<char>>> covered;  // solution file -> (its, ours)
    for (std::size_t g = 0; g < grams.size(); ++g) {
        const auto hit = lesson.grams.find(grams[g]);
        if (hit == lesson.grams.end()) continue;
        for (const auto& [s, t] : hit->second) {
            auto& [theirs, ours] = covered[s];
            if (theirs.empty()) {
                theirs.assign(lesson.files[s].tokens.size(), 0);
                ours.assign(tokens.size(), 0);
            }
            std::fill_n(theirs.begin() + static_cast<long>(t), k, 1);
            std::fill_n(ours.begin() + static_cast<long>(g), k, 1);
        }
    }
    for (const auto& [s, flags] : covered) {
        const auto& [theirs, ours] = flags;
        const solution_file& sf = lesson.files[s];
        // The definition of the solution file (or the file) the form holds
        // the most of, among those it holds enough of.
        std::optional<solution_leak> worst;
        for (const auto& unit : sf.units) {
            std::size_t held = 0, whole = 0;
            for (std::size_t t = 0; t < sf.tokens.size(); ++t) {
                const int line = sf.tokens[t].line;
                if ((unit.first != 0 && (line < unit.first || line > unit.second))) continue;
                ++whole;
                held += theirs[t];
            }
            if (whole == 0 || (unit.first != 0 && whole < release_min_definition_tokens)) continue;
            const double share = static_cast<double>(held) / static_cast<double>(whole);
            if (share < max_share || held < min_tokens || (worst && share <= worst->share)) continue;
            worst = solution_leak{file, f.name, {}, sf.path, unit, share, held, whole};
        }
        if (!worst) continue;
        solution_leak leak = std::move(*worst);
        std::set<int> lines;
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            if (!ours[t] || tokens[t].line < 0) continue;
            const auto l = static_cast<std::size_t>(tokens[t].line);
            lines.insert(l < f.file_line.size() ? f.file_line[l] : f.file_line.back());
        }
        for (int l : lines) {
            if (!leak.lines.empty() && l <= leak.lines.back().second + 1) leak.lines.back().second = l;
            else leak.lines.push_back({l, l});
        }
        leaks.push_back(std::move(leak));
    }
}

}  // namespace

std::vector<solution_leak> find_solution_leaks(const fs::path& full_tree, const fs::path& edition) {
    return find_solution_leaks(full_tree, edition, release_max_share, release_min_tokens, release_k);
}

std::vector<solution_leak> find_solution_leaks(const fs::path& full_tree, const fs::path& edition, double max_share,
                                               std::size_t min_tokens, std::size_t k) {
    const std::vector<lesson_fingerprints> lessons = read_lessons(full_tree, k);
    std::vector<solution_leak> leaks;
    std::vector<std::pair<fs::path, std::vector<form>>> files;
    for (const auto& path : files_under(edition)) files.emplace_back(fs::relative(path, edition), forms_of(path));
    for (const auto& lesson : lessons) {
        for (const auto& [file, forms] : files)
            for (const form& f : forms) {
                read_form r{file, &f, own_tokens(f.text, lesson), {}};
                r.grams = grams_of(r.tokens, k);
                compare_form(r, lesson, k, max_share, min_tokens, leaks);
            }
    }
    // One line per passage: of a file's forms that hold the same solution
    // file (a diff's two sides share their unchanged lines), the one that
    // holds most.
    std::stable_sort(leaks.begin(), leaks.end(), [](const solution_leak& a, const solution_leak& b) {
        return std::tie(a.file, a.solution) < std::tie(b.file, b.solution) ||
               (std::tie(a.file, a.solution) == std::tie(b.file, b.solution) && a.share > b.share);
    });
    std::vector<solution_leak> out;
    for (auto& l : leaks) {
        const bool same = !out.empty() && out.back().file == l.file && out.back().solution == l.solution &&
                          out.back().form.rfind("cell ", 0) != 0;
        if (!same) out.push_back(std::move(l));
    }
    std::stable_sort(out.begin(), out.end(), [](const solution_leak& a, const solution_leak& b) {
        return a.share > b.share;
    });
    return out;
}

}  // namespace grader
