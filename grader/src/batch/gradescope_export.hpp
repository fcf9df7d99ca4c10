#pragma once
// Gradescope's "Export Submissions": a zip (or that zip unpacked) with a
// top folder holding submission_metadata.yml and one submission_<id>/ folder
// per submission. The metadata names each submission's submitters:
//   submission_123456:
//     :submitters:
//     - :name: Ada Lovelace
//       :email: ada@example.edu
//       :sid: '1815'
// (Ruby symbols: the keys start with a colon; keys without one are read too.)
// yaml-cpp reads it (optional at configure time: Debian/Ubuntu libyaml-cpp-dev).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "batch/submissions.hpp"

namespace grader {

// Submission folder name -> its submitters. Throws user_error naming the
// problem and the fix when the text is not such metadata.
std::map<std::string, std::vector<submitter>> parse_gradescope_metadata(const std::string& yaml_text);

// Where the export's metadata is in a folder: the folder itself, or its only
// subfolder (the zip unpacked there) when that holds submission_metadata.yml;
// nullopt when neither.
std::optional<std::filesystem::path> gradescope_export_root(const std::filesystem::path& folder);

// Reads an export, zipped or not. Submissions are named by their submitters
// ("Ada Lovelace", "Ada Lovelace + Charles Babbage" for a group).
submission_set read_gradescope_export(const std::filesystem::path& input, const submission_rules& rules);

}  // namespace grader
