#pragma once
// The first half of comparing submissions (similarity.hpp): what a student
// wrote, as a sequence of tokens that renaming and reformatting do not change.
//
//   - Only the student's own lines count: the lines of their file that a line
//     diff (the longest common subsequence, whitespace ignored) does not
//     match to the same file of the skeleton. What the course handed out is
//     the same for everyone and proves nothing.
//   - Comments and whitespace are dropped. Keywords and operators stay as
//     they are; a literal becomes its kind (a number, a string, a character).
//   - Every identifier becomes one placeholder, unless it is one nobody
//     chooses: a keyword, a CUDA built-in or library name (threadIdx,
//     __syncthreads, cudaMalloc, std, float4, ...), a name the skeleton
//     already has (the contract's functions, types and parameters), or a
//     member after `.`, `->` or `::`. So renaming a variable changes nothing.
//   - What a student adds or rewrites at no cost to hide a copy is made one
//     form: `;`, `{` and `}` are dropped (so are empty statements, and braces
//     around one statement), and so are qualifiers and hints (`const`,
//     `inline`, `__restrict__`, `#pragma unroll`, ...), `#include` lines
//     (which headers a file needs is no one's own code), parentheses around one
//     token after an operator and a second pair around the same thing. Every
//     loop is one form: `for (init; cond; step) body`, `init; while (cond) {
//     body step; }` and `do body while (cond);` all read `init <loop> ( cond )
//     body step`, and `i++` as a statement or a step reads `++i`. A moved
//     token keeps its line.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace grader {

struct similarity_token {
    std::uint64_t hash = 0;  // of the normalised text ("for", "+=", "<id>", "<number>", "threadIdx")
    int line = 0;            // where it starts in its file, from 1
};

// Every token of C++/CUDA source, normalised as above, comments and
// whitespace left out; in the order compared (a loop's step after its body),
// so lines do not always rise. `known_names` are the identifiers kept as themselves besides the
// built-in ones (skeleton_names() of the lesson's skeleton).
std::vector<similarity_token> tokenize_source(std::string_view text, const std::set<std::string>& known_names);

// The identifiers that appear (outside comments and literals) in a skeleton's files.
std::set<std::string> skeleton_names(const std::vector<std::string>& skeleton_texts);

// For each line of `text` (from 1; index 0 unused): true when the student
// wrote it, false when the line diff matches it to a line of `skeleton`.
// Blank lines are never the student's. Inputs too large to diff line by line
// in bounded memory are matched by content instead (a line is the
// skeleton's while the skeleton has an unmatched copy of it).
std::vector<bool> own_lines(std::string_view text, std::string_view skeleton);

// The definitions of C++/CUDA source with a body at namespace scope
// (functions, classes and structs whole, methods defined outside their
// class, initialisers; not the namespaces): [first line, last line] of each,
// from the line its declaration starts on.
std::vector<std::pair<int, int>> definition_lines(std::string_view text);

// The lines of `text`, without their line ends: for quoting matched lines.
std::vector<std::string> lines_of(std::string_view text);

}  // namespace grader
