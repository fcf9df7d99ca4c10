#pragma once
// Reading a class's submissions for `grader batch LESSON SUBMISSIONS`.
// SUBMISSIONS is one of:
//   - a folder with one subfolder per student, the lesson's exercise files
//     anywhere inside, matched by file name (as grader/gradescope/run_autograder
//     matches them);
//   - a folder of GitHub Classroom clones (assignment-name-githubuser/, each a
//     git clone holding exercises/NN_name/): the student is the folder's name
//     less the prefix all of them share;
//   - a Gradescope "Export Submissions" zip (or that zip unpacked): a folder
//     with submission_metadata.yml, which names the submitters, and one
//     submission_<id>/ folder per submission.
// A bad submission never stops the batch: what went wrong is one line in its
// `problems`, and what could not be used is graded as the untouched skeleton
// would be. Only a bad SUBMISSIONS as a whole (not there, neither a folder nor
// a zip, an unreadable metadata file, a zip over the limits) throws a
// user_error that names the problem and the fix. Nothing is ever written into
// SUBMISSIONS, and no symbolic link inside it is followed.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checkout/manifest.hpp"

namespace grader {

namespace fs = std::filesystem;

struct submission_limits {
    std::uintmax_t max_file_bytes = 1'000'000;          // one exercise file ("1 MB")
    std::uintmax_t max_submission_bytes = 100'000'000;  // all one submission's files, as a zip declares them
    std::uintmax_t max_zip_bytes = 4'000'000'000;       // the whole zip, unpacked
    std::uintmax_t max_zip_entries = 100'000;
    std::uintmax_t max_folder_entries = 100'000;        // files and folders looked at in one submission folder
    std::uintmax_t max_metadata_bytes = 50'000'000;     // submission_metadata.yml
};

// What a lesson expects of a submission.
struct submission_rules {
    std::string lesson_id;                    // "lesson01": for messages
    std::string lesson_dir;                   // "01_vecadd": where a Classroom clone keeps its exercise
    std::vector<std::string> exercise_files;  // "vecadd.cu": the names matched
    submission_limits limits;
};
submission_rules rules_for(const lesson_info& lesson);

struct submitter {  // from Gradescope's metadata
    std::string name, email, sid;
};

struct submission {
    std::string student;                       // unique in the set; what results and gradebook rows are named by
    std::string origin;                        // where in SUBMISSIONS it came from: "alice", "submission_123456"
    std::vector<submitter> submitters;         // Gradescope only; a group submission has several
    std::map<std::string, std::string> files;  // exercise file name -> the content found (read once: what
                                               // is hashed is what is graded)
    std::vector<std::string> problems;         // one clear line each
};

enum class submissions_kind { student_folders, classroom_clones, gradescope_export };
const char* to_string(submissions_kind kind);

struct submission_set {
    submissions_kind kind = submissions_kind::student_folders;
    std::vector<submission> submissions;  // sorted by student
    std::vector<std::string> notes;       // about SUBMISSIONS as a whole: what was skipped at its top
};

// What SUBMISSIONS looks like: a zip file is a Gradescope export, as is a
// folder with submission_metadata.yml (at its top or one folder down); a
// folder whose subfolders are all git clones holds Classroom clones; any other
// folder holds one subfolder per student.
submissions_kind detect_submissions_kind(const fs::path& input);

// Reads SUBMISSIONS; `kind` overrides the detection.
submission_set read_submissions(const fs::path& input, const submission_rules& rules,
                                std::optional<submissions_kind> kind = std::nullopt);

// False when this grader was built without the libraries a Gradescope export
// needs (yaml-cpp for its metadata, libarchive for a zip); `why` then names
// the package to install.
bool can_read_gradescope_metadata(std::string* why = nullptr);
bool can_read_zip(std::string* why = nullptr);

}  // namespace grader
