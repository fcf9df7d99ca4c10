#include "batch/submissions.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "batch/gradescope_export.hpp"
#include "batch/submission_files.hpp"
#include "checkout/context.hpp"

namespace grader {

namespace {

constexpr const char* what_submissions_is =
    "SUBMISSIONS is a folder with one subfolder per student, a folder of GitHub Classroom clones, or the zip "
    "that Gradescope's Export Submissions gives";

[[noreturn]] void bad_input(const fs::path& input, const std::string& problem) {
    throw user_error(usage_error, fmt::format("{} {}. {}", input.string(), problem, what_submissions_is));
}

bool starts_like_a_zip(const fs::path& file) {
    std::ifstream in{file, std::ios::binary};
    char magic[4] = {};
    in.read(magic, 4);
    // A local file header, or the end record of an empty zip.
    return in && (std::string(magic, 4) == "PK\x03\x04" || std::string(magic, 4) == "PK\x05\x06");
}

// The top-level folders of SUBMISSIONS, sorted; what else is there (files,
// links) is a note. Hidden entries (.DS_Store, a .git of the whole folder)
// are passed over in silence.
std::vector<std::string> student_folders(const fs::path& input, std::vector<std::string>& notes) {
    std::vector<std::string> folders, loose, links;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(input, ec)) {
        const std::string name = e.path().filename().string();
        if (name.front() == '.') continue;
        if (e.is_symlink()) links.push_back(name);
        else if (e.is_directory()) folders.push_back(name);
        else loose.push_back(name);
    }
    if (ec) bad_input(input, fmt::format("could not be read ({})", ec.message()));
    std::sort(folders.begin(), folders.end());
    std::sort(loose.begin(), loose.end());
    std::sort(links.begin(), links.end());
    if (!loose.empty())
        notes.push_back(fmt::format("ignored {} file{} at the top of {} (a submission is a folder): {}", loose.size(),
                                    loose.size() == 1 ? "" : "s", input.string(), fmt::join(loose, ", ")));
    if (!links.empty())
        notes.push_back(fmt::format("ignored {} symbolic link{} at the top of {} (links are not followed; copy the "
                                    "folders instead): {}",
                                    links.size(), links.size() == 1 ? "" : "s", input.string(), fmt::join(links, ", ")));
    if (folders.empty()) bad_input(input, "holds no submissions (no subfolders)");
    return folders;
}

bool is_git_clone(const fs::path& folder) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(folder / ".git", ec));  // a folder, or a file for a worktree
}

// The prefix every Classroom folder shares, up to and with its last '-'
// ("lab1-vecadd-"), so that "lab1-vecadd-ada" names the student "ada". None
// for a single folder: its whole name might be the assignment's.
std::string common_prefix(const std::vector<std::string>& names) {
    if (names.size() < 2) return "";
    std::string prefix = names.front();
    for (const auto& n : names) {
        std::size_t i = 0;
        while (i < prefix.size() && i < n.size() && prefix[i] == n[i]) ++i;
        prefix.resize(i);
    }
    const auto dash = prefix.find_last_of('-');
    prefix = dash == std::string::npos ? "" : prefix.substr(0, dash + 1);
    for (const auto& n : names)
        if (n.size() == prefix.size()) return "";  // it would leave a student nameless
    return prefix;
}

submission_set read_student_folders(const fs::path& input, const submission_rules& rules) {
    submission_set set;
    set.kind = submissions_kind::student_folders;
    for (const auto& folder : student_folders(input, set.notes)) {
        submission s;
        s.student = s.origin = folder;
        choose_exercise_files(list_folder(input / folder, "", rules, s.problems), rules, s);
        set.submissions.push_back(std::move(s));
    }
    return set;
}

submission_set read_classroom_clones(const fs::path& input, const submission_rules& rules) {
    submission_set set;
    set.kind = submissions_kind::classroom_clones;
    const std::vector<std::string> folders = student_folders(input, set.notes);
    const std::string prefix = common_prefix(folders);
    const std::string exercise = "exercises/" + rules.lesson_dir;
    for (const auto& folder : folders) {
        submission s;
        s.origin = folder;
        s.student = folder.substr(prefix.size());
        const fs::path clone = input / folder;
        std::error_code ec;
        if (!is_git_clone(clone)) s.problems.push_back(fmt::format("{} is not a git clone (no .git)", folder));
        // A clone holds the whole course template: only the lesson's exercise folder is the submission.
        if (!rules.lesson_dir.empty() && fs::is_directory(fs::symlink_status(clone / exercise, ec))) {
            choose_exercise_files(list_folder(clone, exercise, rules, s.problems), rules, s);
        } else {
            s.problems.push_back(fmt::format("no {}/ in the clone: files matched by name anywhere in it", exercise));
            choose_exercise_files(list_folder(clone, "", rules, s.problems), rules, s);
        }
        set.submissions.push_back(std::move(s));
    }
    return set;
}

// Two submissions with one name (two "Ada Lovelace"s on Gradescope) are told
// apart by where they came from.
void make_names_unique(std::vector<submission>& subs) {
    std::map<std::string, int> uses;
    for (const auto& s : subs) ++uses[s.student];
    for (auto& s : subs)
        if (uses[s.student] > 1) s.student += " (" + s.origin + ")";
}

}  // namespace

submission_rules rules_for(const lesson_info& lesson) {
    submission_rules rules;
    rules.lesson_id = lesson.id;
    rules.lesson_dir = lesson.dir;
    rules.exercise_files = lesson.sources;
    return rules;
}

const char* to_string(submissions_kind kind) {
    switch (kind) {
        case submissions_kind::student_folders: return "student folders";
        case submissions_kind::classroom_clones: return "GitHub Classroom clones";
        case submissions_kind::gradescope_export: return "Gradescope export";
    }
    return "unknown";
}

submissions_kind detect_submissions_kind(const fs::path& input) {
    std::error_code ec;
    const fs::file_status status = fs::status(input, ec);
    if (!fs::exists(status)) bad_input(input, "does not exist");
    if (fs::is_regular_file(status)) {
        if (starts_like_a_zip(input)) return submissions_kind::gradescope_export;
        bad_input(input, "is neither a folder nor a zip file");
    }
    if (!fs::is_directory(status)) bad_input(input, "is neither a folder nor a zip file");
    if (gradescope_export_root(input)) return submissions_kind::gradescope_export;
    std::vector<std::string> ignored;
    const auto folders = student_folders(input, ignored);
    const bool clones = std::all_of(folders.begin(), folders.end(),
                                    [&](const std::string& f) { return is_git_clone(input / f); });
    return clones ? submissions_kind::classroom_clones : submissions_kind::student_folders;
}

submission_set read_submissions(const fs::path& input, const submission_rules& rules,
                                std::optional<submissions_kind> kind) {
    if (rules.exercise_files.empty())
        throw std::logic_error("read_submissions: the lesson names no exercise files (rules_for(lesson))");
    const submissions_kind chosen = kind ? *kind : detect_submissions_kind(input);
    submission_set set;
    switch (chosen) {
        case submissions_kind::student_folders: set = read_student_folders(input, rules); break;
        case submissions_kind::classroom_clones: set = read_classroom_clones(input, rules); break;
        case submissions_kind::gradescope_export: set = read_gradescope_export(input, rules); break;
    }
    make_names_unique(set.submissions);
    std::sort(set.submissions.begin(), set.submissions.end(),
              [](const submission& a, const submission& b) { return a.student < b.student; });
    return set;
}

}  // namespace grader
