#pragma once
// Finding the build folder and the lessons in it, with errors that say how to fix them.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkout/manifest.hpp"
#include "system/user_error.hpp"

namespace grader {

// What every command is given: the build folder it was pointed at
// (--build-dir), or none, and then open_build looks for one.
struct common_args {
    std::optional<std::filesystem::path> build_dir;
};

manifest open_build(const std::optional<fs::path>& build_dir);
// The lesson `name` names; else a usage error that says which lessons come
// close ("did you mean lesson01 (vecadd)?") and lists the valid ones.
const lesson_info& find_lesson(const manifest& m, const std::string& name);

// The names in `known` that `typed` may have meant, closest first, at most
// `most`: a few typos away (letters added, dropped, changed or swapped, case
// ignored), a test whose name after its suite's is `typed` ("Empty" for
// "VecAdd.Empty"), or names (or a test's name after its suite's) that
// `typed` starts, from 3 letters on.
// What an unknown test, lesson, mutant or textbook form's error suggests.
std::vector<std::string> close_matches(const std::string& typed, const std::vector<std::string>& known,
                                       std::size_t most = 5);
// "did you mean A?", "did you mean A, B or C?"; empty for no matches.
std::string did_you_mean(const std::vector<std::string>& matches);

// In the student edition, what `grader run --solution` (`--mutant`,
// `--cheat`, `--textbook`) says, one line: the edition has no such version,
// it is the instructor's. `variant_name`: "solution", "mutant_NAME",
// "cheat_NAME", "textbook_NAME"; "" for any other (the exercise).
std::string student_edition_lacks(const std::string& lesson, const std::string& variant_name);

// -o must never overwrite the course's own files, least of all the student's:
// throws a usage error when `output` lies inside exercises/, solutions/,
// lessons/, common/ or grader/.
void check_output_path(const manifest& m, const fs::path& output);

}  // namespace grader
