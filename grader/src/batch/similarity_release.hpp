#pragma once
// `grader release`'s check (checkout/release.hpp): the student edition holds
// no solution, in any form the copy flag would see through.
//
// Every file the release would write is read as code the way the copy flag
// reads a submission (similarity_tokens.hpp: names, loop forms, empty
// statements and decorations normalised), in every form a solution can hide
// in:
//   - a text file, whole (source, a README with its fenced blocks, a script);
//   - a diff: a file with lines that begin with `+` or `-` is read twice,
//     as its new side (`+` lines and the rest, `-` lines left out) and as its
//     old side, so a solution in a `+` line of a patch or of a ```diff block
//     reads as the code it is;
//   - a notebook (.ipynb, JSON): the source of each cell, code and markdown,
//     with its lines found in the notebook's own text to name them.
// Each is compared with every file of solutions/, lesson by lesson: with the
// lesson's skeleton names kept as themselves, and with every line that is
// a line of the same lesson's exercise skeleton left out on both sides (the
// student has those anyway). A k-gram (the copy flag's k) of the edition
// that is one of a solution file's covers that file's tokens; a form that
// covers release_max_share of a solution file's own tokens, and at least
// release_min_tokens, is a leak. Nothing else is exempt: lessons/,
// exercises/ and common/ are checked like any other folder.
#include <filesystem>
#include <vector>

#include "checkout/release.hpp"

namespace grader {

// Every passage of the edition under `edition` that holds too much of a
// solution file of the full tree under `full_tree` (both folders on disk):
// at most one per form of an edition file and solution file, most of the
// solution first. Usable as write_student_edition's check.
std::vector<solution_leak> find_solution_leaks(const std::filesystem::path& full_tree,
                                               const std::filesystem::path& edition);
// The same with other limits than release_max_share and release_min_tokens
// (to see how near the limits a tree comes).
std::vector<solution_leak> find_solution_leaks(const std::filesystem::path& full_tree,
                                               const std::filesystem::path& edition, double max_share,
                                               std::size_t min_tokens, std::size_t k);

}  // namespace grader
