#pragma once
// What a batch compares the class with (similarity.hpp): the lesson's
// skeleton (what every student started from, taken out of everyone's code),
// and the course's own versions of the lesson, where the course has them:
// the reference solution (solutions/NN_name/), its textbook forms
// (grader/textbooks/NN_name/<name>/textbook.patch), its known-wrong versions
// (grader/mutants/.../mistake.patch) and its known cheats
// (grader/cheats/.../cheat.patch). The patches are unified diffs against the
// solution; they are applied here, in memory, so the comparison needs no
// -DCOURSE_BUILD_MUTANTS build. The student edition has none of these: a
// batch there compares classmates only.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "batch/similarity.hpp"
#include "checkout/manifest.hpp"

namespace grader {

// The skeleton of `lesson`: its exercise folder's files (the lesson's
// sources, and the names in every source and header there).
lesson_skeleton read_lesson_skeleton(const manifest& m, const lesson_info& lesson);

// The course's versions of the lesson, each reduced against `skeleton`, the
// reference solution first; none when the course has no solution. A patch
// that does not apply is left out.
std::vector<similarity_document> read_course_versions(const manifest& m, const lesson_info& lesson,
                                                      const lesson_skeleton& skeleton);

// `files` (name -> content) with a unified diff (`diff -u`, paths a/NAME and
// b/NAME) applied: each hunk where its line numbers say, or, when the file
// has moved, where its old lines are found nearest to there. nullopt when a
// hunk's old lines are nowhere in its file, or the file is not in `files`.
std::optional<std::map<std::string, std::string>> apply_unified_diff(std::map<std::string, std::string> files,
                                                                     const std::string& patch);

}  // namespace grader
