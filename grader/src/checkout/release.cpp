#include "checkout/release.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <utility>

#include "system/process.hpp"
#include "system/user_error.hpp"

namespace grader {

namespace fs = std::filesystem;

namespace {

// The fixed names of the edition's commit: with the source commit's date,
// they make the commit id a function of the source commit alone.
const std::vector<std::pair<std::string, std::string>> edition_identity = {
    {"GIT_AUTHOR_NAME", "grader release"},
    {"GIT_AUTHOR_EMAIL", "grader-release@localhost"},
    {"GIT_COMMITTER_NAME", "grader release"},
    {"GIT_COMMITTER_EMAIL", "grader-release@localhost"},
};

// A scratch folder of this process's own, removed with it.
class scratch_folder {
public:
    scratch_folder() : path_(fs::temp_directory_path() / fmt::format("grader-release-{}", getpid())) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~scratch_folder() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    scratch_folder(const scratch_folder&) = delete;
    scratch_folder& operator=(const scratch_folder&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

// Runs git (or tar) with `args`; returns what it printed. Throws user_error
// with that output when it fails.
std::string run_tool(const std::string& tool, const std::vector<std::string>& args, const fs::path& log,
                     const std::vector<std::pair<std::string, std::string>>& env = {},
                     const std::optional<fs::path>& working_dir = std::nullopt) {
    const auto program = find_program(tool);
    if (!program) throw user_error(usage_error, fmt::format("grader release needs {}: install it", tool));
    child_process::options options;
    options.argv = {program->string()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = env;
    options.output = log;
    options.working_dir = working_dir;
    child_process child(options);
    const exit_status status = child.wait();
    std::string printed = file_text(log);
    if (status.signaled || status.code != 0) {
        std::string command = tool;
        for (const auto& a : args) command += " " + a;
        throw user_error(usage_error, fmt::format("`{}` failed ({}): {}", command, status.describe(), printed));
    }
    return printed;
}

std::string first_line(std::string text) {
    text = text.substr(0, text.find('\n'));
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    return text;
}

// Each regular file under `folder` (none inside a .git folder), sorted.
std::vector<fs::path> files_under(const fs::path& folder) {
    std::vector<fs::path> files;
    if (!fs::is_directory(folder)) return files;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        if (entry.is_regular_file() && entry.path().string().find("/.git/") == std::string::npos)
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// Copies grader/release/student/ of the full tree over the edition, keeping
// each file's executable bit.
void lay_over(const fs::path& overlay, const fs::path& edition) {
    for (const auto& file : files_under(overlay)) {
        const fs::path target = edition / fs::relative(file, overlay);
        fs::create_directories(target.parent_path());
        fs::copy_file(file, target, fs::copy_options::overwrite_existing);
    }
}

void write_whole(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw user_error(usage_error, fmt::format("cannot write {}", file.string()));
}

// A JSON file of the edition, its keys in their order (it is written back);
// `shown_as` names it in the error.
nlohmann::ordered_json read_json(const fs::path& file, const std::string& shown_as) {
    try {
        return nlohmann::ordered_json::parse(file_text(file));
    } catch (const nlohmann::json::exception& e) {
        throw user_error(usage_error, fmt::format("{} is not valid JSON: {}", shown_as, e.what()));
    }
}

}  // namespace

void drop_instructors_presets(const fs::path& edition) {
    const fs::path file = edition / "CMakePresets.json";
    if (!fs::is_regular_file(file)) return;
    nlohmann::ordered_json presets = read_json(file, "CMakePresets.json");
    const auto instructors_only = [](const nlohmann::ordered_json& preset) {
        const auto vendor = preset.find("vendor");
        if (vendor == preset.end() || !vendor->is_object()) return false;
        const auto course = vendor->find("course");
        return course != vendor->end() && course->is_object() && course->value("instructors_only", false);
    };
    for (const char* kind : {"configurePresets", "buildPresets", "testPresets"}) {
        const auto list = presets.find(kind);
        if (list == presets.end() || !list->is_array()) continue;
        nlohmann::ordered_json kept = nlohmann::ordered_json::array();
        for (const auto& preset : *list)
            if (!instructors_only(preset)) kept.push_back(preset);
        *list = std::move(kept);
    }
    write_whole(file, presets.dump(2) + "\n");
}

namespace {

// The notebook's clone address: the line of its first code cell that sets
// REPO_URL (`REPO_URL = "..."`).
const std::string notebook_path = "colab/course.ipynb";
const std::string notebook_line = "REPO_URL = ";
const std::string notebook_placeholder = "YOUR-ORGANISATION";
// The README's: its clone line.
const std::string readme_path = "README.md";
const std::string readme_placeholder = "git clone <this repository>";

}  // namespace

void write_repo_url(const fs::path& edition, const std::string& url, release_result& result) {
    for (const unsigned char c : url) {
        if (c <= ' ' || c == 0x7f || c == '"' || c == '\\' || c == '\'' || c == '`')
            throw user_error(usage_error,
                             fmt::format("--repo-url '{}' cannot stand in the notebook's Python string or the README's "
                                         "shell line: give a URL without spaces, quotes or backslashes",
                                         url));
    }

    const fs::path notebook = edition / notebook_path;
    if (fs::is_regular_file(notebook)) {
        nlohmann::ordered_json nb = read_json(notebook, notebook_path);
        bool found = false, placeholder = false;
        if (!nb.is_object() || !nb.contains("cells") || !nb["cells"].is_array())
            throw user_error(usage_error, fmt::format("{} has no cells: is it a notebook?", notebook_path));
        for (auto& cell : nb["cells"]) {
            if (!cell.is_object() || cell.value("cell_type", "") != "code") continue;
            // Its source: a list of lines (each but the last ending in \n), or one string.
            auto& source = cell["source"];
            if (source.is_string()) source = nlohmann::ordered_json::array({source});
            for (auto& line : source) {
                if (!line.is_string()) continue;
                std::string text = line.get<std::string>();
                if (text.rfind(notebook_line, 0) != 0) continue;
                found = true;
                placeholder = text.find(notebook_placeholder) != std::string::npos;
                if (!url.empty()) {
                    const bool newline = !text.empty() && text.back() == '\n';
                    line = notebook_line + "\"" + url + "\"" + (newline ? "\n" : "");
                }
            }
            break;  // the first code cell only
        }
        if (found && !url.empty()) {
            // The notebook's own layout (one space of indent, keys as they
            // were, non-ASCII escaped, as the source is written), so
            // the diff to the source is the one line.
            write_whole(notebook, nb.dump(1, ' ', /*ensure_ascii=*/true) + "\n");
            result.repo_url_written.push_back(notebook_path);
        } else if (found && placeholder) {
            result.repo_url_placeholders.push_back(notebook_path);
        }
    }

    const fs::path readme = edition / readme_path;
    if (fs::is_regular_file(readme)) {
        std::string text = file_text(readme);
        bool any = false;
        for (std::size_t at = text.find(readme_placeholder); at != std::string::npos;
             at = text.find(readme_placeholder, at)) {
            any = true;
            if (url.empty()) break;
            text.replace(at, readme_placeholder.size(), "git clone " + url);
            at += std::string("git clone ").size() + url.size();
        }
        if (any && !url.empty()) {
            write_whole(readme, text);
            result.repo_url_written.push_back(readme_path);
        } else if (any) {
            result.repo_url_placeholders.push_back(readme_path);
        }
    }
}

std::string release_repo_url_line(const std::string& url, const release_result& r) {
    std::vector<std::string> places;
    const auto& files = url.empty() ? r.repo_url_placeholders : r.repo_url_written;
    for (const auto& f : files) {
        const std::string name = f.generic_string();
        places.push_back(name == "colab/course.ipynb" ? "the Colab notebook's REPO_URL (colab/course.ipynb)"
                         : name == "README.md"        ? "the README's clone line"
                                                      : name);
    }
    if (!url.empty())
        return places.empty() ? fmt::format("--repo-url {}: the edition has no clone address to write it into\n", url)
                              : fmt::format("clone address {} written into {}\n", url, fmt::join(places, " and "));
    if (places.empty()) return "";
    return fmt::format("without --repo-url the edition names no repository to clone: {} still hold{} a placeholder "
                       "(the notebook's clone cell stops; a student must guess the README's `git clone`); release "
                       "again with --repo-url URL\n",
                       fmt::join(places, " and "), places.size() == 1 ? "s" : "");
}

std::string describe_leak_lines(const std::vector<std::pair<int, int>>& lines) {
    std::string spans;
    for (const auto& [first, last] : lines)
        spans += (spans.empty() ? "" : ", ") + (first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
    const bool one = lines.size() == 1 && lines[0].first == lines[0].second;
    return fmt::format("line{} {}", one ? "" : "s", spans);
}

release_result write_student_edition(const fs::path& source_dir, const std::string& commit, const fs::path& out_dir,
                                     const solution_leak_check& check, const std::string& repo_url) {
    if (fs::exists(out_dir) && !(fs::is_directory(out_dir) && fs::is_empty(out_dir)))
        throw user_error(usage_error, fmt::format("{} already exists and is not empty: give a new folder (grader "
                                                  "release never writes over anything)",
                                                  out_dir.string()));
    const scratch_folder scratch;
    const fs::path log = scratch.path() / "git.log";
    const std::string git_dir = source_dir.string();
    release_result result;
    result.source_commit = first_line(run_tool("git", {"-C", git_dir, "rev-parse", "--verify", commit + "^{commit}"}, log));
    const std::string date = first_line(run_tool("git", {"-C", git_dir, "show", "-s", "--format=%cI", result.source_commit}, log));

    // The whole tree of the commit (to read the solutions and the overlay
    // from), through an index of our own: the repository's is not touched.
    const fs::path full = scratch.path() / "full";
    const std::vector<std::pair<std::string, std::string>> own_index = {
        {"GIT_INDEX_FILE", (scratch.path() / "index").string()}};
    run_tool("git", {"-C", git_dir, "read-tree", result.source_commit}, log, own_index);
    run_tool("git", {"-C", git_dir, "checkout-index", "--all", "--prefix=" + full.string() + "/"}, log, own_index);

    // The edition: the commit as git archive gives it (export-ignore left
    // out), with the overlay laid over it.
    const fs::path tar = scratch.path() / "edition.tar";
    run_tool("git", {"-C", git_dir, "archive", "--format=tar", "-o", tar.string(), result.source_commit}, log);
    fs::create_directories(out_dir);
    run_tool("tar", {"-xf", tar.string(), "-C", out_dir.string()}, log);
    lay_over(full / "grader" / "release" / "student", out_dir);
    try {
        drop_instructors_presets(out_dir);
        write_repo_url(out_dir, repo_url, result);
    } catch (...) {
        fs::remove_all(out_dir);
        throw;
    }

    const std::vector<solution_leak> leaked = check(full, out_dir);
    if (!leaked.empty()) {
        constexpr std::size_t shown = 30;
        std::string list;
        for (std::size_t i = 0; i < leaked.size() && i < shown; ++i) {
            const solution_leak& l = leaked[i];
            list += fmt::format("\n  {} {}{}: {:.0f}% of {}{} ({} of its {} own tokens)", l.file.string(),
                                describe_leak_lines(l.lines), l.form.empty() ? "" : " (" + l.form + ")",
                                std::floor(l.share * 100), l.solution.string(),
                                l.definition.first ? " " + describe_leak_lines({l.definition}) : "", l.tokens,
                                l.solution_tokens);
        }
        if (leaked.size() > shown) list += fmt::format("\n  ... and {} more", leaked.size() - shown);
        fs::remove_all(out_dir);
        throw user_error(
            usage_error,
            fmt::format("the student edition would hold solution code: {} passage(s) hold {:g}% or more of a "
                        "solution file's own code or of a definition in it (its tokens on lines that are not its lesson's skeleton's; at "
                        "least {} tokens; release_max_share), compared as the batch's copy flag compares, so "
                        "renamed names, rewritten loops and empty statements do not hide it. Teach with a sibling "
                        "problem instead, or mark the file export-ignore in .gitattributes, then release again "
                        "(nothing was written):{}",
                        leaked.size(), release_max_share * 100, release_min_tokens, list));
    }
    result.files = files_under(out_dir).size();

    // One commit, the same for the same source commit.
    std::vector<std::pair<std::string, std::string>> env = edition_identity;
    env.emplace_back("GIT_AUTHOR_DATE", date);
    env.emplace_back("GIT_COMMITTER_DATE", date);
    const std::string out = out_dir.string();
    const std::vector<std::string> no_user_config = {"-c", "core.autocrlf=false", "-c", "commit.gpgsign=false",
                                                     "-c", "init.defaultBranch=main"};
    auto git_in_edition = [&](std::vector<std::string> args) {
        args.insert(args.begin(), no_user_config.begin(), no_user_config.end());
        args.insert(args.begin(), {"-C", out});
        return run_tool("git", args, log, env);
    };
    git_in_edition({"init", "--quiet"});
    git_in_edition({"add", "--all"});
    git_in_edition({"commit", "--quiet", "--no-verify", "-m",
                    fmt::format("The course, student edition\n\nSource-Commit: {}\n", result.source_commit)});
    result.edition_commit = first_line(git_in_edition({"rev-parse", "HEAD"}));
    return result;
}

}  // namespace grader
