#include "cli/run_timeline.hpp"

#include <fmt/format.h>

#include <fstream>
#include <ostream>

#include "course/temp_dir.hpp"
#include "evidence/gpu_timeline.hpp"
#include "system/process.hpp"
#include "system/python.hpp"

namespace grader {

bool show_timelines(const manifest& m, const lesson_info& lesson, const std::string& variant,
                    const lesson_report& report, std::ostream& out) {
    // Where grade_variant keeps the run's logs and evidence (run/grade.cpp).
    const std::filesystem::path run_dir = m.build_dir / "grader-logs" / fmt::format("{}-{}", lesson.id, variant);
    std::vector<std::string> problems;
    const auto timelines = read_gpu_timelines(run_dir / "evidence", problems);
    out << "\n";
    for (const auto& problem : problems) out << "timeline: " << problem << "\n";
    if (timelines.empty()) {
        out << fmt::format(
            "timeline: no timed test of {} recorded the GPU in this run. Speed tests run once the correctness "
            "tests pass, on a GPU, with the grader's recorder (a toolkit with CUPTI).\n",
            lesson.id);
        return false;
    }
    for (const auto& t : timelines) out << timeline_sketch(t) << "\n";

    // The picture: the same calls, through the plot script `grader plot` uses.
    const std::filesystem::path folder = m.build_dir / "timelines";
    std::filesystem::create_directories(folder);
    const std::filesystem::path document = folder / fmt::format("{}-{}.json", lesson.id, variant);
    const std::filesystem::path picture = folder / fmt::format("{}-{}.png", lesson.id, variant);
    std::ofstream(document) << timeline_plot_document(timelines, lesson.id, lesson.title, report.device).dump(1)
                            << "\n";
    course::temp_dir scratch("grader-timeline");
    std::string python;
    try {
        python = find_python(scratch / "check.log");
    } catch (const std::exception& e) {
        out << fmt::format("timeline: no picture ({}); the data is in {}\n", e.what(), document.string());
        return false;
    }
    const std::filesystem::path script = m.source_dir / "grader" / "plot" / "course_plot.py";
    const std::filesystem::path log = scratch / "plot.log";
    const exit_status status = run_command(
        {"/usr/bin/env", python, script.string(), document.string(), "--kind", "timeline", "-o", picture.string()},
        log);
    if (status.signaled || status.code != 0) {
        out << fmt::format("timeline: the plot script failed ({}):\n{}", status.describe(), tail_of_file(log, 20));
        return false;
    }
    out << fmt::format("timeline: drawn in {}\n", picture.string());
    return true;
}

}  // namespace grader
