#pragma once
// A class roster: who each submission is in the LMS the grades go back to
// (`grader batch --roster FILE`; batch/lms_export.hpp writes the grades).
//
// The file is CSV (RFC 4180: a field may be quoted, a quoted field may hold
// commas, doubled quotes and line breaks; LF or CRLF line ends; a UTF-8
// byte-order mark, as Excel writes, is skipped). Its first row names the
// columns, in any order and any case; other columns are left alone:
//
//   folder   the student as the batch names them: the gradebook's `student`
//            column (a submission folder's name; a Classroom clone's GitHub
//            user). Required, each once.
//   id       what the LMS knows the student by: Canvas's SIS Login ID (often
//            the login or the e-mail address), Moodle's username or e-mail
//            address. Required, each once.
//   name     the name the LMS shows ("Lovelace, Ada"). Optional.
//   section  Canvas's section. Optional.
//
//   folder,id,name,section
//   ada-l,ada@uni.example,"Lovelace, Ada",Section 01
//
// Without a roster, each submission's own identity is used: the submitter's
// e-mail address where the submissions said it (a Gradescope export), else
// the folder name.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

// RFC 4180 records: a list of fields per record, blank lines left out.
// Throws std::invalid_argument for a quote left open or stray text after a
// closing quote, naming the line.
std::vector<std::vector<std::string>> parse_csv(std::string_view text);

struct roster_entry {
    std::string folder, id, name, section;
};

struct roster {
    std::string source;                          // the file, for messages
    std::vector<roster_entry> entries;           // in the file's order
    std::map<std::string, std::size_t> by_folder;  // folder -> index in entries

    const roster_entry* find(const std::string& folder) const;
};

// The roster in `text` (from `source`, which messages name). A user_error
// (usage error) for a missing column, an empty folder or id, or a folder or
// id given twice, naming the line.
roster parse_roster(std::string_view text, const std::string& source);
roster read_roster(const std::filesystem::path& file);

}  // namespace grader
