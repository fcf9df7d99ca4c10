#include "batch/selection.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <iostream>
#include <sstream>

#include "checkout/context.hpp"
#include "system/atomic_file.hpp"
#include "system/process.hpp"

namespace grader {

std::optional<submissions_kind> kind_named(const std::string& name) {
    if (name == "folders") return submissions_kind::student_folders;
    if (name == "classroom") return submissions_kind::classroom_clones;
    if (name == "gradescope") return submissions_kind::gradescope_export;
    return std::nullopt;  // "auto": told from its shape
}

fs::path batch_folder(const manifest& course, const lesson_info& lesson, const batch_args& args) {
    const fs::path out = fs::absolute(args.output.value_or(fs::path("batch-" + lesson.id))).lexically_normal();
    check_output_path(course, out);
    const fs::path submissions = fs::absolute(args.submissions).lexically_normal();
    if (auto rel = out.lexically_relative(submissions); !rel.empty() && *rel.begin() != "..")
        throw user_error(usage_error, fmt::format("the batch folder {} lies inside SUBMISSIONS; nothing is ever "
                                                  "written there: choose another with -o",
                                                  out.string()));
    return out;
}

batch_class open_batch_class(const common_args& common, const batch_args& args) {
    batch_class klass{open_build(common.build_dir), {}, {}, {}, {}, {}};
    klass.lesson = find_lesson(klass.course, args.lesson);
    klass.submissions_path = fs::absolute(args.submissions).lexically_normal();
    klass.out = batch_folder(klass.course, klass.lesson, args);
    if (!args.chunk.empty()) chunk_range(args.chunk, 0);  // checked before anything takes time

    klass.set = read_submissions(klass.submissions_path, rules_for(klass.lesson), kind_named(args.kind));
    std::cout << fmt::format("{}: {} submission(s) in {} ({})\n", klass.lesson.id, klass.set.submissions.size(),
                             klass.submissions_path.string(), to_string(klass.set.kind));
    std::vector<std::string> notes = klass.set.notes;
    klass.chosen = chosen_submissions(klass.set, args.only_students, args.chunk, notes);
    for (const auto& note : notes) std::cout << "  note: " << note << "\n";
    return klass;
}

std::pair<std::size_t, std::size_t> chunk_range(const std::string& chunk, std::size_t count) {
    unsigned index = 0, parts = 0;
    char slash = 0;
    std::istringstream in(chunk);
    if (!(in >> index >> slash >> parts) || slash != '/' || parts == 0 || index >= parts || !in.eof())
        throw user_error(usage_error, fmt::format("--chunk {}: write it as I/N with 0 <= I < N, e.g. --chunk 0/4",
                                                  chunk));
    return {count * index / parts, count * (index + 1) / parts};
}

void write_student_list(const fs::path& file, const std::vector<std::string>& students) {
    write_file_atomically(file, nlohmann::json(students).dump(1) + "\n");
}

std::vector<std::string> read_student_list(const fs::path& file) {
    try {
        return nlohmann::json::parse(file_text(file)).get<std::vector<std::string>>();
    } catch (const std::exception& e) {
        throw user_error(usage_error, fmt::format("--only-students {}: not a JSON list of student names ({})",
                                                  file.string(), e.what()));
    }
}

std::vector<const submission*> chosen_submissions(const submission_set& set,
                                                  const std::optional<fs::path>& only_students,
                                                  const std::string& chunk, std::vector<std::string>& notes) {
    std::vector<std::string> names;
    if (only_students) {
        names = read_student_list(*only_students);
    } else {
        for (const auto& s : set.submissions) names.push_back(s.student);
    }
    std::size_t first = 0, last = names.size();
    if (!chunk.empty()) std::tie(first, last) = chunk_range(chunk, names.size());

    std::map<std::string, const submission*> by_student;
    for (const auto& s : set.submissions) by_student[s.student] = &s;
    std::map<std::string, const submission*> chosen;  // sorted, as the set is
    for (std::size_t i = first; i < last; ++i) {
        if (const auto found = by_student.find(names[i]); found != by_student.end())
            chosen[names[i]] = found->second;
        else
            notes.push_back(fmt::format("{} is listed in {} but has no submission in SUBMISSIONS any more",
                                        names[i], only_students->string()));
    }
    std::vector<const submission*> result;
    for (const auto& [student, s] : chosen) result.push_back(s);
    return result;
}

batch_todo sort_out_graded(const std::vector<const submission*>& chosen, const std::string& lesson_id,
                           const std::string& course_commit, const result_cache& cache, bool force) {
    batch_todo todo;
    for (const submission* s : chosen) {
        const std::string key = content_key(lesson_id, course_commit, s->files);
        if (!force && cache.is_done(s->student, key)) {
            if (auto stored = cache.load(s->student)) {
                todo.already_graded.push_back(std::move(*stored));
                continue;
            }
        }
        todo.to_grade.push_back({s, key});
    }
    return todo;
}

}  // namespace grader
