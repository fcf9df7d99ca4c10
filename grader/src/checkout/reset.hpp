#pragma once
// `grader reset`: putting an exercise's skeleton back, from git, without ever
// losing the student's work. Each changed file is first copied beside itself
// as `file.<YYYYmmdd-HHMMSS>.bak`, the copy is read back and checked, and only
// then is the skeleton written, through a temporary file and a rename.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

namespace fs = std::filesystem;

struct skeleton_file {
    fs::path path;          // the student's file: <course>/exercises/01_vecadd/vecadd.cu
    std::string git_path;   // the same file in git: exercises/01_vecadd/vecadd.cu
    std::string pristine;   // its content in the skeleton
    bool exists = false;    // the student's file is there
    bool modified = false;  // and differs from the skeleton (or is missing)
};

struct skeleton {
    std::string commit;  // where the skeleton comes from (abbreviated hash)
    std::string why;     // "HEAD", or "where this branch left origin/main"
    std::vector<skeleton_file> files;

    bool modified() const;
};

// `git` on $PATH, if there is one.
std::optional<fs::path> find_git();

// Reads the skeleton of `sources` (file names in `exercise_dir`) from git:
// from the commit where this branch left its upstream, or HEAD when it has
// none, so that a student who commits their work still gets the course's
// skeleton back. Throws user_error naming the problem and its fix when there
// is no git, no checkout, or a file git does not know.
skeleton find_skeleton(const fs::path& exercise_dir, const std::vector<std::string>& sources,
                       const std::optional<fs::path>& git = find_git());

// The first free name `file.<stamp>.bak`, `file.<stamp>-1.bak`, ... beside `file`.
fs::path backup_path(const fs::path& file, const std::string& stamp);

// Now, in local time, as in a backup's name: 20250131-174502.
std::string backup_stamp();

struct reset_action {
    fs::path file;
    std::optional<fs::path> backup;  // where the student's version went, if there was one to keep
    bool restored = false;           // false: it was already the skeleton
};

// Saves and restores every modified file of `s`. The student's file is read
// again here, so an edit saved since find_skeleton() is what gets kept.
// Throws (with the student's file untouched) if a backup cannot be written
// and verified.
std::vector<reset_action> restore_skeleton(const skeleton& s, const std::string& stamp);

}  // namespace grader
