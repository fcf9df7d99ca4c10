#include "batch/outputs.hpp"

#include <iostream>

#include "batch/class_report.hpp"
#include "batch/gradebook.hpp"
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

void write_class_outputs(const manifest& m, const lesson_info& lesson, const std::filesystem::path& out,
                         const std::vector<batch_result>& results) {
    write_gradebook(out / "gradebook.csv", results);
    std::cout << "gradebook: " << (out / "gradebook.csv").string() << "\n";
    const nlohmann::json data = class_report_data(lesson.id, lesson.title, results);
    try {
        write_class_report(data, out / "report", class_report_script(m));
        std::cout << "class report: " << (out / "report" / "class_report.html").string() << "\n";
    } catch (const user_error& e) {
        write_file_atomically(out / "report" / "class_report.json", data.dump(2) + "\n");
        std::cout << "class report not drawn: " << e.what() << "\n";
    }
}

}  // namespace grader
