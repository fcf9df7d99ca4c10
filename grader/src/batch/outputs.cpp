#include "batch/outputs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "batch/class_report.hpp"
#include "batch/gradebook.hpp"
#include "batch/lms_export.hpp"
#include "checkout/context.hpp"
#include "system/atomic_file.hpp"

namespace grader {

outcome_counts count_outcomes(const std::vector<batch_result>& results) {
    outcome_counts counts;
    for (const auto& r : results) {
        switch (r.state()) {
            case batch_result::outcome::graded: ++counts.graded; break;
            case batch_result::outcome::build_failed: ++counts.build_failed; break;
            case batch_result::outcome::not_graded: ++counts.not_graded; break;
        }
    }
    return counts;
}

void write_grades_for_lms(const std::filesystem::path& out, const lesson_info& lesson,
                          const std::vector<batch_result>& results) {
    lms_settings settings;
    try {
        settings = kept_lms_settings(out);
    } catch (const user_error& e) {  // the kept copy was edited since the run that checked it
        std::cout << "roster not used: " << e.what() << "\n";
    }
    const lms_outputs written = write_lms_outputs(out, lesson.id, lesson.title, results, settings);
    std::cout << fmt::format("grades for an LMS: {} (Canvas), {} (Moodle); feedback, a .txt and an .html per "
                             "student: {}{}\n",
                             written.canvas.string(), written.moodle.string(), written.feedback.string(),
                             settings.class_roster ? "" : " (no roster: named by e-mail address or folder; --roster FILE maps them)");
    const auto some = [](const std::vector<std::string>& names) {
        const std::size_t shown = std::min<std::size_t>(names.size(), 20);
        return fmt::format("{}{}", fmt::join(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                           names.size() > shown ? fmt::format(" and {} more", names.size() - shown) : "");
    };
    if (!written.not_in_roster.empty())
        std::cout << fmt::format("NOT IN THE ROSTER: {} student{} ({}); their rows carry the folder's name and say "
                                 "\"not in the roster\", and an import will not match them: add them to the roster "
                                 "and run again with --roster (nothing is graded twice; this batch's copy: {})\n",
                                 written.not_in_roster.size(), written.not_in_roster.size() == 1 ? "" : "s",
                                 some(written.not_in_roster), settings.class_roster->source);
    if (!written.without_submission.empty())
        std::cout << fmt::format("no submission from {} student{} of the roster: {}\n", written.without_submission.size(),
                                 written.without_submission.size() == 1 ? "" : "s", some(written.without_submission));
}

void write_class_outputs(const manifest& m, const lesson_info& lesson, const std::filesystem::path& out,
                         const std::vector<batch_result>& results, const class_similarity* similarity,
                         class_report_ahead* report_ahead) {
    // Names and lines come from students' files: bytes that are not UTF-8 are replaced, not fatal.
    const auto text = [](const nlohmann::json& j) {
        return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    };
    const std::map<std::string, std::string> flags = similarity ? similarity_flags(*similarity) : std::map<std::string, std::string>{};
    write_gradebook(out / "gradebook.csv", results, flags);
    std::cout << "gradebook: " << (out / "gradebook.csv").string() << "\n";
    write_grades_for_lms(out, lesson, results);
    nlohmann::json data = class_report_data(lesson.id, lesson.title, results);
    const std::filesystem::path similarity_file = out / "similarity.json";
    if (similarity) {
        write_file_atomically(similarity_file, text(similarity_json(*similarity)));
        data["similarity"] = similarity_report_data(*similarity);
        std::cout << fmt::format("similar submissions: {} pair{} flagged for the instructor to look at ({:.1f} s): {}\n",
                                 similarity->pairs.size(), similarity->pairs.size() == 1 ? "" : "s",
                                 similarity->seconds, similarity_file.string());
    } else {
        std::error_code ec;  // an earlier run's would describe another class
        std::filesystem::remove(similarity_file, ec);
    }
    try {
        write_class_report(data, out / "report", class_report_script(m), report_ahead);
        std::cout << "class report: " << (out / "report" / "class_report.html").string() << "\n";
    } catch (const user_error& e) {
        write_file_atomically(out / "report" / "class_report.json", text(data));
        std::cout << "class report not drawn: " << e.what() << "\n";
    }
}

}  // namespace grader
