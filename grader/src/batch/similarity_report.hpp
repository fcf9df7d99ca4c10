#pragma once
// A batch's comparison of its class (similarity.hpp), and how it is told:
//   - out/similarity.json (schema "course-similarity/1"): the settings, what
//     was compared with, and every flagged pair: both names, the similarity
//     and each side's share, the matched tokens, the matched line ranges on
//     both sides and the first matched lines of the student's;
//   - the gradebook's `similarity` column (gradebook.hpp): per student, the
//     pairs they are in ("the reference solution 93% (vecadd.cu lines 12-30)";
//     a pair flagged file by file: "the reference solution 100% in events.cu
//     (events.cu lines 8-18)");
//   - the class report's "Similar submissions" section (the same pairs).
// A flag asks the instructor to look; it is not a verdict and changes no score.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batch/similarity.hpp"
#include "batch/submissions.hpp"
#include "checkout/manifest.hpp"

namespace grader {

struct class_similarity {
    similarity_settings settings;
    std::size_t students = 0;
    std::vector<std::string> compared_with;  // describe_source() of each course version
    std::vector<similar_pair> pairs;         // the flagged ones (find_similar_pairs)
    double seconds = 0;                      // what comparing took
};

// Compares the class's lesson files with each other and with the course's
// versions (course_versions.hpp).
class_similarity compare_class(const manifest& m, const lesson_info& lesson,
                               const std::vector<const submission*>& students, const similarity_settings& settings);
// The comparison `--similarity` asked for, with its share as the threshold
// (parse_similarity_threshold); none when it said off. Both engines call it
// before writing the class's outputs.
std::optional<class_similarity> compare_class_if_asked(const manifest& m, const lesson_info& lesson,
                                                       const std::vector<const submission*>& students,
                                                       std::optional<double> threshold);

// "the reference solution", "the textbook form tiled_16x16", "the known-wrong
// version grid_rounded_down", "the known cheat memoized"; a student's name as it is.
std::string describe_source(source_kind kind, const std::string& name);

// "vecadd.cu lines 12-30, 41; async_pool.cu line 7"
std::string describe_lines(const std::vector<line_range>& ranges);

nlohmann::json similarity_json(const class_similarity& result);

// The class report's section: the settings and the first `max_pairs` pairs
// (with how many there are in all), each in words.
nlohmann::json similarity_report_data(const class_similarity& result, std::size_t max_pairs = 100);

// Per flagged student, the gradebook's words: their pairs, most similar
// first, each with the student's own matched lines; at most
// `max_per_student`, then how many more similarity.json lists.
std::map<std::string, std::string> similarity_flags(const class_similarity& result, std::size_t max_per_student = 3);

}  // namespace grader
