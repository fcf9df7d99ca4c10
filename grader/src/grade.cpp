#include "grade.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "context.hpp"
#include "course/device_info.hpp"
#include "runner.hpp"

namespace grader {

std::vector<std::string> targets_for_grading(const lesson_info& lesson, const std::string& variant) {
    std::vector<std::string> targets;
    for (const std::string& name : {variant, std::string("solution")}) {
        const variant_info* v = lesson.variant(name);
        if (v && std::find(targets.begin(), targets.end(), v->tests_target) == targets.end())
            targets.push_back(v->tests_target);
    }
    return targets;
}

lesson_report grade_variant(const manifest& m, const lesson_info& lesson, const std::string& variant_name,
                            const grade_options& options) {
    const variant_info* variant = lesson.variant(variant_name);
    if (!variant) throw user_error(usage_error, fmt::format("{} has no '{}' build", lesson.id, variant_name));

    lesson_report report;
    report.lesson_id = lesson.id;
    report.title = lesson.title;
    report.variant = variant_name;
    report.seed = options.seed;
    if (course::has_device()) {
        try {
            report.device = course::query_device().summary();
        } catch (const std::exception&) {
        }
    } else {
        report.no_gpu_reason = course::device_status().reason;
    }

    // The judge: the same graded tests built against the reference solution.
    const variant_info* judge = lesson.variant("solution");
    if (!judge) throw user_error(build_error, fmt::format("{} has no solution build to judge with", lesson.id));

    run_options run;
    run.tests_program = variant->tests;
    run.judge_program = judge->tests;
    run.log_dir = m.build_dir / "grader-logs" / fmt::format("{}-{}", lesson.id, variant_name);
    run.seed = options.seed;
    run.per_test_limit = options.per_test_limit;
    run.only = options.only;
    run.implementation_library = variant->library;
    if (options.sandbox) {
        run.bwrap = find_bubblewrap();
        // Hidden: the references, the known-wrong versions and cheats, and the
        // build folder (compiled solutions, other variants' evidence). Shown
        // again: the variant's own library, which lesson07's tests read.
        run.sandbox.hidden = {m.source_dir / "solutions", m.source_dir / "grader" / "mutants",
                              m.source_dir / "grader" / "cheats", m.build_dir};
        if (!variant->library.empty()) run.sandbox.readable.push_back(variant->library);
        report.notes.push_back(describe_sandbox(run.bwrap));
    }
    try {
        graded_run graded = run_graded_tests(run);
        report.tests = std::move(graded.tests);
        report.notes.insert(report.notes.end(), graded.notes.begin(), graded.notes.end());
    } catch (const std::exception& e) {
        throw user_error(build_error, fmt::format("could not run {}: {}", variant->tests.string(), e.what()));
    }
    return report;
}

}  // namespace grader
