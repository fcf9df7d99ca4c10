#include "batch/submission_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace grader {

namespace {

constexpr std::size_t named_ignored_files = 5;

std::size_t depth_of(const std::string& path) { return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')); }

bool is_exercise_file(const submission_rules& rules, const std::string& name) {
    return std::find(rules.exercise_files.begin(), rules.exercise_files.end(), name) != rules.exercise_files.end();
}

std::string count_word(std::size_t n) {
    static const char* words[] = {"no", "one", "two", "three", "four", "five"};
    return n < std::size(words) ? words[n] : std::to_string(n);
}

// Why a found file with an exercise's name cannot be used, or "" when it can.
std::string unusable(const found_file& f, const submission_rules& rules) {
    if (f.unsafe_path) return fmt::format("{} leads outside its submission folder: refused", f.path);
    if (f.type == found_file::kind::symlink) return fmt::format("{} is a symbolic link: not followed, not used", f.path);
    if (f.type == found_file::kind::other) return fmt::format("{} is not a regular file: not used", f.path);
    if (f.damaged) return fmt::format("{} could not be read (damaged or encrypted): not used", f.path);
    if (f.size > rules.limits.max_file_bytes || !f.content)
        return fmt::format("{} is {}, over the {} limit: not used", f.path, human_size(f.size),
                           human_size(rules.limits.max_file_bytes));
    return "";
}

// Reads at most `limit` + 1 bytes: enough to know a file grew past the limit
// after it was measured, never more.
std::optional<std::string> read_at_most(const std::filesystem::path& file, std::uintmax_t limit, bool& damaged) {
    std::ifstream in{file, std::ios::binary};
    if (!in) {
        damaged = true;
        return std::nullopt;
    }
    std::string content(static_cast<std::size_t>(limit) + 1, '\0');
    in.read(content.data(), static_cast<std::streamsize>(content.size()));
    if (in.bad()) {
        damaged = true;
        return std::nullopt;
    }
    content.resize(static_cast<std::size_t>(in.gcount()));
    if (content.size() > limit) return std::nullopt;
    content.shrink_to_fit();  // a class's worth of small files must not each hold a limit's worth of memory
    return content;
}

}  // namespace

std::string file_name_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_noise(const std::string& path) {
    const std::string name = file_name_of(path);
    if (name == ".DS_Store" || name == "Thumbs.db" || name == "desktop.ini") return true;
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        const std::string part = path.substr(start, end - start);
        if (part == ".git" || part == "__MACOSX") return true;
        start = end + 1;
    }
    return false;
}

std::string human_size(std::uintmax_t bytes) {
    if (bytes < 1000) return fmt::format("{} byte{}", bytes, bytes == 1 ? "" : "s");
    static const char* units[] = {"kB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes) / 1000;
    std::size_t unit = 0;
    while (value >= 1000 && unit + 1 < std::size(units)) {
        value /= 1000;
        ++unit;
    }
    std::string number = fmt::format("{:.1f}", value);
    if (number.size() > 2 && number.compare(number.size() - 2, 2, ".0") == 0) number.resize(number.size() - 2);
    return number + " " + units[unit];
}

std::string graded_as_skeleton() { return "graded as the untouched skeleton would be"; }

void choose_exercise_files(std::vector<found_file> found, const submission_rules& rules, submission& into) {
    // Shallowest first, then alphabetically: the same choice on every run.
    std::sort(found.begin(), found.end(), [](const found_file& a, const found_file& b) {
        return std::pair(depth_of(a.path), a.path) < std::pair(depth_of(b.path), b.path);
    });

    std::vector<std::string> missing;
    for (const auto& name : rules.exercise_files) {
        std::vector<const found_file*> usable;
        std::vector<std::string> refused;
        for (const auto& f : found) {
            if (file_name_of(f.path) != name || is_noise(f.path)) continue;
            if (std::string why = unusable(f, rules); !why.empty()) refused.push_back(std::move(why));
            else usable.push_back(&f);
        }
        if (usable.empty() && refused.empty()) {
            missing.push_back(name);
            continue;
        }
        if (usable.empty()) refused.back() += "; " + name + " is " + graded_as_skeleton();
        into.problems.insert(into.problems.end(), refused.begin(), refused.end());
        if (usable.empty()) continue;
        if (usable.size() > 1) {
            std::vector<std::string> paths;
            for (const auto* f : usable) paths.push_back(f->path);
            into.problems.push_back(fmt::format("{} files named {} ({}): used {}", count_word(usable.size()), name,
                                                fmt::join(paths, ", "), usable.front()->path));
        }
        into.files[name] = *usable.front()->content;
    }
    if (!missing.empty() && missing.size() == rules.exercise_files.size() && missing.size() > 1)
        into.problems.push_back(fmt::format("missing every {} file ({}): {}", rules.lesson_id,
                                            fmt::join(missing, ", "), graded_as_skeleton()));
    else
        for (const auto& name : missing) into.problems.push_back(fmt::format("missing {}: {}", name, graded_as_skeleton()));

    std::vector<std::string> ignored, leaving;
    for (const auto& f : found) {
        if (is_exercise_file(rules, file_name_of(f.path))) continue;  // said above
        if (f.unsafe_path) leaving.push_back(f.path);
        else if (!is_noise(f.path) && f.type != found_file::kind::other) ignored.push_back(f.path);
    }
    if (!leaving.empty())
        into.problems.push_back(fmt::format("refused {} zip entr{} leading outside the submission: {}", leaving.size(),
                                            leaving.size() == 1 ? "y" : "ies", fmt::join(leaving, ", ")));
    if (!ignored.empty()) {
        std::string named = fmt::format("{}", fmt::join(ignored.begin(),
                                                        ignored.begin() + std::min(ignored.size(), named_ignored_files),
                                                        ", "));
        if (ignored.size() > named_ignored_files) named += fmt::format(" and {} more", ignored.size() - named_ignored_files);
        into.problems.push_back(fmt::format("ignored {} {} not part of {}: {}", ignored.size(),
                                            ignored.size() == 1 ? "file that is" : "files that are", rules.lesson_id,
                                            named));
    }
}

std::vector<found_file> list_folder(const std::filesystem::path& root, const std::string& sub,
                                    const submission_rules& rules, std::vector<std::string>& problems) {
    namespace fs = std::filesystem;
    std::vector<found_file> found;
    const fs::path start = sub.empty() ? root : root / sub;
    std::error_code ec;
    fs::recursive_directory_iterator it(start, fs::directory_options::none, ec), end;
    if (ec) {
        problems.push_back(fmt::format("{} could not be read ({}): {}", sub.empty() ? "the folder" : sub, ec.message(),
                                       graded_as_skeleton()));
        return found;
    }
    std::uintmax_t seen = 0;
    for (; it != end; it.increment(ec)) {
        if (ec) {
            problems.push_back(fmt::format("part of the folder could not be read ({}): files in it were not seen",
                                           ec.message()));
            break;
        }
        if (++seen > rules.limits.max_folder_entries) {
            problems.push_back(fmt::format("more than {} files and folders: stopped looking there",
                                           rules.limits.max_folder_entries));
            break;
        }
        const fs::path& path = it->path();
        const std::string relative = path.lexically_relative(root).generic_string();
        const fs::file_status status = it->symlink_status(ec);
        if (ec) continue;
        if (fs::is_directory(status)) {
            if (path.filename() == ".git") it.disable_recursion_pending();  // a clone's history: never a submission
            continue;
        }
        found_file f;
        f.path = relative;
        f.type = fs::is_symlink(status)        ? found_file::kind::symlink
                 : fs::is_regular_file(status) ? found_file::kind::regular
                                               : found_file::kind::other;  // a FIFO could block a read forever
        if (f.type == found_file::kind::regular) {
            f.size = it->file_size(ec);
            if (ec) f.damaged = true;
            else if (is_exercise_file(rules, file_name_of(relative)) && !is_noise(relative) &&
                     f.size <= rules.limits.max_file_bytes)
                f.content = read_at_most(path, rules.limits.max_file_bytes, f.damaged);
        }
        found.push_back(std::move(f));
    }
    return found;
}

}  // namespace grader
