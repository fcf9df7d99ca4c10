#pragma once
// Where a batch keeps each student's results, and how it knows what is
// already graded: results/<student>/ holds what the student would see
// (report.txt), the machine formats (report.json, Gradescope's results.json),
// what the batch knew besides (outcome.json) and, written last, `key`: the
// content key of the submission those files grade. A rerun whose key matches
// skips the student; an interrupted batch leaves no key for the student it
// was writing, so that student is graded again. Regrading everything
// (--force) is the caller's: it simply does not ask is_done().
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "batch/result.hpp"

namespace grader {

namespace fs = std::filesystem;

// SHA-256 (hex) over the lesson, the course commit and the submission's
// files (name and content, in name order), each length-prefixed so that no
// two different inputs hash the same bytes. Changing any file, the lesson or
// the course (its tests, its judge) changes the key.
std::string content_key(const std::string& lesson_id, const std::string& course_commit,
                        const std::map<std::string, std::string>& files);

// A folder name for a student that is safe on any file system: letters,
// digits and . _ - @ + are kept, anything else becomes _, and when anything
// was changed a short hash of the real name is added so two students never
// share a folder ("Jane Doe" -> "Jane_Doe-1f3a9c2e").
std::string folder_name_for(const std::string& student);

// What the student reads of their result (report.txt): the report, without
// colour, every test on its line; after a build failure the compiler's
// message; when nothing was graded, why, and that it is not a zero.
std::string student_report_text(const batch_result& r);

class result_cache {
public:
    explicit result_cache(fs::path root);  // "results": created on the first store()

    const fs::path& root() const { return root_; }
    fs::path folder_of(const std::string& student) const;

    // True when the student's files are complete and grade exactly `key`.
    bool is_done(const std::string& student, const std::string& key) const;

    // Writes the student's folder, each file atomically and `key` last. A
    // not-graded result is written without a key (its report.txt says why),
    // so the next run tries it again, as is one with tests skipped for want
    // of a GPU (not graded too) or one graded without the sandbox
    // (--no-sandbox). For a build failure, report.txt is the
    // compiler message the student would see.
    void store(const batch_result& result, const std::string& key) const;

    // When store() last wrote the student's result; nullopt when there is
    // none. A cluster job's submitter tells a task's new result from one an
    // earlier run left (a not-graded one has no key to tell them by) by this.
    std::optional<fs::file_time_type> written_at(const std::string& student) const;

    // What store() wrote, for the gradebook and class report of a batch
    // that skipped this student; nullopt when the folder is missing or
    // unreadable (grade the student again).
    std::optional<batch_result> load(const std::string& student) const;

private:
    fs::path root_;
};

}  // namespace grader
