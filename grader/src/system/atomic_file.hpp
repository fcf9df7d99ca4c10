#pragma once
// Writing a file so that whoever reads it (a person, a rerun after the batch
// was interrupted) finds either the old content or the new, never half of it.
#include <filesystem>
#include <string_view>

namespace grader {

// Writes `content` to a temporary file in the same folder (a rename is atomic
// only within one file system), flushes it to disk, then renames it over
// `file`. Creates the folder if needed. Throws user_error (usage_error) naming
// the file and the fix when it cannot.
void write_file_atomically(const std::filesystem::path& file, std::string_view content);

}  // namespace grader
