#pragma once
// A batch's gradebook: one CSV row per student that Canvas and Gradescope
// import (a header row, UTF-8 without a byte-order mark, RFC 4180 quoting,
// CRLF line ends). Columns:
//   student, [email, sid: when any row knows them], score, max_score,
//   one column per graded test id (the points earned), note,
//   [similarity: when any student is flagged (similarity_report.hpp)]
// A student who was not graded has an empty score and empty test columns
// (an import leaves their grade alone) and the reason in `note`: that is
// also a submission whose GPU tests could not run (a batch without a GPU),
// whose host tests alone would import as a grade. A build failure scores 0
// and says so; problems with the submission (a missing file graded as the
// skeleton) are in `note` too, and so is a grade made without the sandbox
// (--no-sandbox: "NOT SANDBOXED"). `similarity` says whom a
// student's code resembles, for the instructor to look at: it changes no
// score, and an import leaves it alone as it does `note`.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "batch/result.hpp"

namespace grader {

// Rows in student order, whatever order `results` is in. `similarity`:
// student -> their flags (similarity_flags()); none, no column.
std::string format_gradebook_csv(const std::vector<batch_result>& results,
                                 const std::map<std::string, std::string>& similarity = {});

// Writes the CSV atomically (atomic_file.hpp).
void write_gradebook(const std::filesystem::path& file, const std::vector<batch_result>& results,
                     const std::map<std::string, std::string>& similarity = {});

// One CSV field: quoted (with quotes doubled) when it holds a comma, a quote
// or a line break; bytes that are not UTF-8 become U+FFFD.
std::string csv_field(std::string_view text);

// One CSV record: the fields joined by commas, each as csv_field writes it,
// ended by CRLF (RFC 4180).
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace grader
