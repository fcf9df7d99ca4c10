#pragma once
// Choosing a submission's exercise files among those found in it, whether
// they came from a folder or a zip: the part every kind of SUBMISSIONS shares
// (submissions.hpp), and the lines that say what was chosen and why.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/submissions.hpp"

namespace grader {

struct found_file {
    enum class kind { regular, symlink, other };
    std::string path;                    // inside the submission, '/'-separated: "src/vecadd.cu"
    std::uintmax_t size = 0;             // bytes (for a zip entry: as the zip declares it)
    kind type = kind::regular;
    std::optional<std::string> content;  // read when its name is an exercise file's and it is within the limit
    bool unsafe_path = false;            // a zip path that would leave its folder ("../x", "/etc/x"): never read
    bool damaged = false;                // could not be read (a corrupt or encrypted zip entry, an I/O error)
};

// "src/vecadd.cu" -> "vecadd.cu"
std::string file_name_of(const std::string& path);

// Files nobody submits on purpose and nobody needs to hear about: git's own,
// macOS's (__MACOSX/, .DS_Store), Windows' (Thumbs.db).
bool is_noise(const std::string& path);

// "3.1 MB", "1 MB", "512 bytes": decimal units, as the limits are written.
std::string human_size(std::uintmax_t bytes);

// Picks each exercise file among `found` and adds one line per problem to
// `into.problems`: a missing file (graded as the skeleton), duplicates (the
// shallowest, then alphabetically first, is used), a file over the size
// limit, a link, other files that are not the lesson's (counted, first few
// named).
void choose_exercise_files(std::vector<found_file> found, const submission_rules& rules, submission& into);

// Lists the files under root/sub (sub may be empty), paths relative to root,
// reading the exercise files' content. No link is followed and .git is not
// entered. What cannot be read is a line in `problems`.
std::vector<found_file> list_folder(const std::filesystem::path& root, const std::string& sub,
                                    const submission_rules& rules, std::vector<std::string>& problems);

// The line for a submission none of whose files can be used.
std::string graded_as_skeleton();

}  // namespace grader
