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
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace grader {

struct release_result {
    std::string source_commit;   // the full id of the commit released
    std::string edition_commit;  // the edition's one commit
    std::size_t files = 0;       // files in the edition
    // Where the edition names the repository to clone (colab/course.ipynb's
    // REPO_URL, README.md's clone line): the files the given URL was written
    // into, and those that still hold the placeholder (all of them when no
    // URL was given).
    std::vector<std::filesystem::path> repo_url_written;
    std::vector<std::filesystem::path> repo_url_placeholders;
};

// Writes `url` where the edition at `edition` names the repository a student
// clones: the REPO_URL line of the first code cell of colab/course.ipynb
// (edited as JSON, written back as Jupyter writes it) and the README's
// `git clone <this repository>` line. An empty `url` writes nothing and
// reports the placeholders found. A file the edition lacks is skipped (the
// Dockerfile copies its folder and clones nothing). Throws user_error for a
// URL that cannot stand in a Python string or a shell line (quotes,
// backslashes, spaces, control characters).
void write_repo_url(const std::filesystem::path& edition, const std::string& url, release_result& result);

// Leaves out of the edition's CMakePresets.json the presets marked
// `"vendor": {"course": {"instructors_only": true}}`: those that build or
// run what the edition does not have (the known-wrong versions, CI's second
// toolkit, the grader's own slow tests).
void drop_instructors_presets(const std::filesystem::path& edition);

// What `grader release` says of the clone address, one line: where `url`
// was written, or, without one, which placeholders are left and what will
// not work (the notebook's clone cell stops); "" when there are none.
std::string release_repo_url_line(const std::string& url, const release_result& r);

// What the release refuses (the check is the batch's copy flag's
// fingerprints, batch/similarity_release.hpp, handed in by the command: this
// stage cannot use the batch's): a file of the edition, in any of its forms
// (its text, a diff's sides, a notebook's cells), that holds at least
// `release_max_share` of a solution file's own code, or of one definition
// in it (a function, a kernel, a struct) of `release_min_definition_tokens`
// own tokens or more, and at least `release_min_tokens` tokens of it. Own
// code: the tokens on lines that are not lines of the lesson's exercise
// skeleton. A passage is found by runs of `release_k` tokens, shorter than
// the copy flag's 25: a text shows a few lines, not a submission. The
// figures, on the tree of issue 81: a graded function shown whole or all but
// one line holds 64-100% of it; idioms hold less: a text that teaches the
// thread index holds 50% of the smallest kernel (vecadd's), a grid-stride
// loop of the grader's bench 61% of lesson06's elementwise kernel (so the
// limit sits between, with little room: a closer case needs a person); a
// 3-line helper of a solution (31 tokens) is an idiom the grader's own code
// shares at 74%, which is why a definition must be larger than that to
// count alone.
inline constexpr double release_max_share = 0.625;
inline constexpr std::size_t release_min_tokens = 20;
inline constexpr std::size_t release_min_definition_tokens = 32;
inline constexpr std::size_t release_k = 16;

struct solution_leak {
    std::filesystem::path file;      // in the edition
    std::string form;                // "" (the text), "the new side of its diff", "the old side ...", "cell 4"
    std::vector<std::pair<int, int>> lines;  // of `file`, from 1: [first, last] each
    std::filesystem::path solution;  // "solutions/05_streams/events.cu"
    std::pair<int, int> definition{0, 0};  // its lines of the function (or other definition) held; 0, 0: the file
    double share = 0;                // of the definition's own tokens that the passage holds
    std::size_t tokens = 0;          // how many
    std::size_t solution_tokens = 0; // of how many
};

// "lines 40-52, 60"
std::string describe_leak_lines(const std::vector<std::pair<int, int>>& lines);

// The check a release makes of the edition it wrote (`full_tree`: the
// whole commit, solutions included; `edition`: what would be published).
using solution_leak_check = std::function<std::vector<solution_leak>(const std::filesystem::path& full_tree,
                                                                     const std::filesystem::path& edition)>;

// Writes the edition of `commit` (any revision git names: HEAD, a tag) of
// the repository at `source_dir` into `out_dir`, which must not exist or be
// empty, with `repo_url` (if not empty) as its clone address (write_repo_url). Throws user_error when git is missing, the revision is unknown, the
// folder is in use, or `check` finds a solution in it (naming each file,
// its lines and the share); then nothing is left written.
release_result write_student_edition(const std::filesystem::path& source_dir, const std::string& commit,
                                     const std::filesystem::path& out_dir, const solution_leak_check& check,
                                     const std::string& repo_url = "");

}  // namespace grader
