#pragma once
// Grades back to students: what `grader batch` writes beside the gradebook,
// one total per student, for the LMS the class is run from.
//
//   OUT/lms/canvas.csv   Canvas: Grades > Import. Canvas's own gradebook
//       export's shape: Student, ID, SIS User ID, SIS Login ID, Section, then
//       one column per assignment, "lesson01" or "lesson01 (12345)" (the
//       assignment's id, from its page's address, matches that assignment;
//       a bare name matches one by name or makes a new one), and a second
//       row "Points Possible" (Canvas exports it; an import takes a new
//       assignment's points from it). Canvas's import needs the student
//       columns (one of Student, ID or SIS User ID; SIS Login ID; Section)
//       and the assignment's: "Importing a CSV File to Grades ... four
//       required components: Student Name OR Student ID OR Student SIS User
//       ID ..., SIS Login ID, Section, Assignment Name"
//       (https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades).
//       The student is matched by SIS Login ID: the roster's id.
//   OUT/lms/moodle.csv   Moodle: Grades > Import > CSV file. An identifier
//       column ("Email address" or "Username"), which the import's "Identify
//       user by" maps from (to the e-mail address, username or ID number),
//       the grade column (mapped to the grade item) and a Feedback column
//       (mapped to its feedback), as Moodle's CSV import reads them
//       (moodle/moodle grade/import/csv: its map from/map to user fields).
//   OUT/feedback/<id>.txt and <id>.html   one per student, named by the
//       identifier the CSVs use: the report the student would see, to upload
//       or mail.
//
// Who each student is comes from the roster (batch/roster.hpp), or without
// one from the submission (the submitter's e-mail address from a Gradescope
// export, else the folder's name). A student missing from the roster is not
// dropped: their row carries the folder's name and says "not in the roster"
// (Canvas's import then asks whom it is), and the batch's output names them.
// A student not graded (no GPU, a lost worker) has an empty grade, which an
// import leaves alone: never a zero; one who did not compile scores 0.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/result.hpp"
#include "batch/roster.hpp"

namespace grader {

// How the grades go back, as `grader batch` was told (--roster,
// --lms-column). Kept in the batch folder (OUT/lms/roster.csv, a copy, and
// OUT/lms/settings.json), so that whichever run writes the gradebook (a
// rerun, a Slurm job's collect) uses them too.
struct lms_settings {
    std::optional<roster> class_roster;
    std::string column;  // the assignment's column; empty: the lesson's id
};

// Checks `roster_file` (a user_error for a bad one) and keeps it and
// `column` in OUT/lms; what is not given is left as an earlier run kept it.
void keep_lms_settings(const std::filesystem::path& out, const std::optional<std::filesystem::path>& roster_file,
                       const std::string& column);
// What OUT/lms holds; none: no roster, the lesson's id as the column.
lms_settings kept_lms_settings(const std::filesystem::path& out);

// One student as the LMS files name them.
struct lms_student {
    const batch_result* result = nullptr;
    std::string id;        // the LMS identifier: the roster's, else the e-mail address, else the folder
    std::string name;      // the roster's; else the submitter's or the folder's
    std::string section;   // the roster's
    std::string sis_user_id;  // Gradescope's student id, where the export said it
    bool in_roster = true;    // false: a roster was given and does not name the student
    std::optional<int> total;  // nullopt: not graded (the grade is left empty)
    std::string feedback_name;  // the feedback files' name without extension
};

// The class in student order, each pointing into `results` (which must
// outlive them). `class_roster`: nullptr without one.
std::vector<lms_student> lms_students(const std::vector<batch_result>& results, const roster* class_roster);

// The CSVs' text (UTF-8, CRLF, RFC 4180 quoting: gradebook.hpp's csv_field).
inline constexpr const char* canvas_student_columns[] = {"Student", "ID", "SIS User ID", "SIS Login ID", "Section"};
std::string format_canvas_csv(const std::vector<lms_student>& students, const std::string& column,
                              std::optional<int> max_score);
std::string format_moodle_csv(const std::vector<lms_student>& students, const std::string& column,
                              std::optional<int> max_score);

// A student's feedback: the heading (lesson, who, the total) and the report
// they would see; the HTML page is self-contained, every name escaped.
std::string feedback_text(const lms_student& s, const std::string& lesson_id, const std::string& title,
                          std::optional<int> max_score);
std::string feedback_html(const lms_student& s, const std::string& lesson_id, const std::string& title,
                          std::optional<int> max_score);

struct lms_outputs {
    std::filesystem::path canvas, moodle, feedback;
    std::vector<std::string> not_in_roster;      // graded students the roster does not name
    std::vector<std::string> without_submission;  // roster folders with no submission in this batch
};

// Writes OUT/lms/canvas.csv, OUT/lms/moodle.csv and OUT/feedback/ (its old
// files first removed: it holds this class alone).
lms_outputs write_lms_outputs(const std::filesystem::path& out, const std::string& lesson_id, const std::string& title,
                              const std::vector<batch_result>& results, const lms_settings& settings);

}  // namespace grader
