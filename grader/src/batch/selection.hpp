#pragma once
// Which submissions one `grader batch` run grades. The whole class, or a part
// of it: `--chunk I/N` (one task of a cluster job) and `--only-students FILE`
// (the students a cluster job was submitted for). Then, of those, what is
// already graded with the same files and course (skipped, unless --force)
// and what is left.
//
// Why a list file as well as --chunk: the Slurm engine submits only the
// students not yet graded, and each array task must grade exactly the
// students the submitter gave its index, however the results folder or
// SUBMISSIONS change while the job waits in the queue. So the submitter
// writes the list, and a task's chunk is a part of that list, never of what
// it finds when it starts.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batch/engine.hpp"
#include "batch/options.hpp"
#include "batch/result.hpp"
#include "batch/result_cache.hpp"
#include "batch/submissions.hpp"
#include "checkout/context.hpp"

namespace grader {

namespace fs = std::filesystem;

// The class as one run of `grader batch` sees it: the course's build and the
// lesson, SUBMISSIONS read (--kind, or told from its shape), the batch folder
// (-o; checked to lie neither inside SUBMISSIONS nor inside the course) and
// the chosen submissions (--only-students, --chunk). Prints the class's size
// and what reading it noted.
struct batch_class {
    manifest course;
    lesson_info lesson;
    fs::path submissions_path, out;
    submission_set set;
    std::vector<const submission*> chosen;  // into set, in student order
};
batch_class open_batch_class(const common_args& common, const batch_args& args);

// The batch folder (-o, default ./batch-LESSON), absolute; a user_error where
// it lies inside SUBMISSIONS or the course.
fs::path batch_folder(const manifest& course, const lesson_info& lesson, const batch_args& args);

// --kind's words: folders, classroom, gradescope; nullopt for auto (told from
// the shape of SUBMISSIONS).
std::optional<submissions_kind> kind_named(const std::string& name);

// "2/8" -> [begin, end) of part 2 (counting from 0) of 8 nearly equal,
// contiguous parts of `count` items. Throws user_error for anything but I/N
// with 0 <= I < N.
std::pair<std::size_t, std::size_t> chunk_range(const std::string& chunk, std::size_t count);

// The student list file: a JSON array of names, in the order given.
void write_student_list(const fs::path& file, const std::vector<std::string>& students);
std::vector<std::string> read_student_list(const fs::path& file);  // throws user_error when unreadable

// The submissions this run grades, in student order: the class; or the
// students listed in `only_students`; then, with `chunk`, that part of them.
// A listed student who is not in the set is left out with a line in `notes`.
std::vector<const submission*> chosen_submissions(const submission_set& set,
                                                  const std::optional<fs::path>& only_students,
                                                  const std::string& chunk, std::vector<std::string>& notes);

// The chosen submissions, sorted: what is left to grade (with each one's
// content key) and the stored results of those already graded.
struct batch_todo {
    std::vector<batch_job> to_grade;
    std::vector<batch_result> already_graded;
};
batch_todo sort_out_graded(const std::vector<const submission*>& chosen, const std::string& lesson_id,
                           const std::string& course_commit, const result_cache& cache, bool force);

}  // namespace grader
