#pragma once
// `grader release`: the student edition of the course, written from one
// commit of this (the instructor's) repository as a fresh git repository.
//
// What it leaves out is marked export-ignore in the commit's .gitattributes
// (git archive's own rule): the solutions, the known-wrong, cheat and textbook
// patches, the textbook kernels' source, the instructor's tools and pages.
// grader/release/student/ of the same commit is laid over the result (the
// student README, the edition's CI). The edition holds one commit, made with
// fixed names and the source commit's date, whose message records the source
// commit: the same commit always gives the same tree and the same commit id.
#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct release_result {
    std::string source_commit;   // the full id of the commit released
    std::string edition_commit;  // the edition's one commit
    std::size_t files = 0;       // files in the edition
};

// A line of the reference solutions that may not appear in the edition: one
// with at least `solution_line_min_chars` characters other than spaces that is
// in no file of exercises/, lessons/ or common/ (those are the student's
// anyway).
inline constexpr std::size_t solution_line_min_chars = 25;

struct leaked_line {
    std::filesystem::path file;  // in the edition
    int line = 0;
    std::string text;
};

// Every line of a file under `edition` that is such a solution line of the
// full tree under `full_tree` (both folders on disk).
std::vector<leaked_line> find_solution_lines(const std::filesystem::path& full_tree,
                                             const std::filesystem::path& edition);

// Writes the edition of `commit` (any revision git names: HEAD, a tag) of
// the repository at `source_dir` into `out_dir`, which must not exist or be
// empty. Throws user_error when git is missing, the revision is unknown, the
// folder is in use, or a solution line would appear (naming each).
release_result write_student_edition(const std::filesystem::path& source_dir, const std::string& commit,
                                     const std::filesystem::path& out_dir);

}  // namespace grader
