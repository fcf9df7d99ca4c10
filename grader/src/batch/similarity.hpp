#pragma once
// Which submissions of a class look copied: from the reference solution,
// from the course's textbook forms and known-wrong versions, or from each
// other. A flag for the instructor to look at, never a verdict: it changes
// no score.
//
// The comparison is MOSS's (Schleimer, Wilkerson and Aiken, "Winnowing",
// SIGMOD 2003) on what each student wrote (similarity_tokens.hpp: their lines
// that are not the skeleton's, comments and whitespace dropped, identifiers
// renamed to one placeholder):
//   - every run of k tokens is hashed, and winnowing keeps the smallest hash
//     of every window of w consecutive ones: any match of k + w - 1 tokens
//     or more is found, shorter ones never are. A hash says nothing about
//     where it lies, so reordering functions changes nothing;
//   - the kept hashes find the pairs worth a look (an inverted index of
//     them: a class of 300 needs no comparison of every pair in full); in
//     such a pair, the tokens of every k-gram both sides have are what
//     matched, on each side;
//   - a pair is flagged when the matched tokens are a large enough share of
//     one side's own code (`similarity`) and enough tokens in all
//     (`min_matched_tokens`): a three-line kernel everyone writes alike is
//     too short to tell copied from not;
//   - or else, file by file: when one file's own code matches the other
//     side's file of the same name nearly whole (`file_threshold`), with a
//     lower floor (`min_file_matched_tokens`). So a copied small file (the
//     whole of lesson05's events.cu is about 60 tokens) is flagged however
//     much else the student wrote, and so is one copied file of many. What
//     most of a class wrote in a file does not count there: a file so small
//     that its TODO dictates it (events.cu again) would make every pair of
//     the class alike.
// Everything is deterministic: the same class gives the same pairs, in the
// same order, with the same figures.
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "batch/similarity_tokens.hpp"

namespace grader {

// The defaults, against lesson07 (test_similarity.cpp prints its figures):
// a copy of the solution, renamed and reordered or not, matches it at
// 95-100%, and disguised as issue 81 did (renamed, every for a while, `;`
// after every statement) at 92-93%; two tiled kernels written independently
// match the course's versions at 9-26% (no file of theirs above 26%) and
// each other not at all. lesson05's events.cu copied whole, disguised or
// not, matches the solution's file by file at 100% (55 tokens); its TODOs
// completed with the runtime's own events, not at all.
struct similarity_settings {
    double threshold = 0.5;          // the share of one side's own tokens matched, to flag a pair
    std::size_t k = 25;              // tokens per hashed run
    std::size_t window = 4;          // winnowing's window: matches of k + window - 1 tokens are always found
    std::size_t min_matched_tokens = 100;  // fewer matched tokens than this is never a flag
    // File by file, against the other side's file of the same name: flagged
    // when this share of one side's file matched (or `threshold`, if higher),
    // and at least this many tokens.
    double file_threshold = 0.8;
    std::size_t min_file_matched_tokens = 40;
    // File by file, a run of k tokens that this share of the class wrote in
    // the same file (in a class of at least `common_min_students`) is what
    // the lesson dictates, and does not count.
    double common_share = 0.5;
    std::size_t common_min_students = 10;
};

// `--similarity`: "off" or "0" (no comparison), a share ("0.6") or a
// percentage ("60%"). Throws user_error for anything else.
std::optional<double> parse_similarity_threshold(const std::string& text);

// Who a document is: a student of the class, or one of the course's versions.
enum class source_kind { student, reference, textbook, known_wrong, cheat };

// A student's (or a course version's) lesson files, reduced to what they wrote.
struct similarity_document {
    std::string name;  // the student, or the version's name ("tiled_16x16")
    source_kind kind = source_kind::student;
    struct file {
        std::string name;                        // "vecadd.cu"
        std::vector<similarity_token> tokens;    // the own lines' tokens only
        std::vector<std::string> lines;          // the whole file, for quoting what matched
    };
    std::vector<file> files;  // in the lesson's order

    std::size_t token_count() const;
};

// Reduces `files` (name -> content; a lesson file missing from it is the
// skeleton's, and so contributes nothing) against the lesson's skeleton.
struct lesson_skeleton {
    std::vector<std::string> sources;              // the lesson's file names, in its order
    std::map<std::string, std::string> files;      // name -> the skeleton's content
    std::set<std::string> names;                   // skeleton_names() of every skeleton file
};
similarity_document make_document(std::string name, source_kind kind, const std::map<std::string, std::string>& files,
                                  const lesson_skeleton& skeleton);

// Lines of one file that matched: [first, last], from 1.
struct line_range {
    std::string file;
    int first = 0, last = 0;
};

struct similar_pair {
    std::string a, b;                                // a: a student; b: another student or a course version
    source_kind b_kind = source_kind::student;
    std::string file;                                // empty: of all they wrote; else the figures are of this file
                                                     // alone, against the other's file of the same name
    double similarity = 0;                           // the larger of share_a and share_b
    double share_a = 0, share_b = 0;                 // of each side's own tokens, the share that matched
    std::size_t matched_a = 0, matched_b = 0;        // matched tokens on each side
    std::vector<line_range> lines_a, lines_b;        // where, on each side
    std::vector<std::string> excerpt_a;              // a's first matched lines as written ("f.cu:12: ..."), at
                                                     // most 12; for the max_quoted_pairs most similar pairs only
};
constexpr std::size_t max_quoted_pairs = 200;

// Every flagged pair: each student against every other student (once per
// pair, a before b in name order), and each student against the course
// version that matches them best, if it is flagged (the known-wrong
// versions differ from the solution by a line or two: a copy of the
// solution matches them all, and one line says it better than twenty).
// Sorted by similarity, highest first, then by names.
std::vector<similar_pair> find_similar_pairs(const std::vector<similarity_document>& students,
                                             const std::vector<similarity_document>& course_versions,
                                             const similarity_settings& settings);

}  // namespace grader
