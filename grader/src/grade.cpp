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
    return grade_program(m, lesson,
                         {variant_name, variant->tests, variant->library,
                          m.build_dir / "grader-logs" / fmt::format("{}-{}", lesson.id, variant_name)},
                         options);
}

namespace {
// The GPU a run is graded on, in the report's words.
void describe_device(lesson_report& report, int device) {
    if (!course::has_device()) {
        report.no_gpu_reason = course::device_status().reason;
        return;
    }
    try {
        report.device = course::query_device(device < 0 ? 0 : device).summary();
    } catch (const std::exception&) {
    }
}
}  // namespace

lesson_report grade_program(const manifest& m, const lesson_info& lesson, const graded_program& program,
                            const grade_options& options) {
    lesson_report report;
    report.lesson_id = lesson.id;
    report.title = lesson.title;
    report.variant = program.variant;
    report.seed = options.seed;
    describe_device(report, options.device);

    // The judge: the same graded tests built against the reference solution.
    const variant_info* judge = lesson.variant("solution");
    if (!judge) throw user_error(build_error, fmt::format("{} has no solution build to judge with", lesson.id));

    run_options run;
    run.tests_program = program.tests;
    run.judge_program = judge->tests;
    run.log_dir = program.log_dir;
    run.seed = options.seed;
    run.per_test_limit = options.per_test_limit;
    run.only = options.only;
    run.implementation_library = program.library;
    run.gate = options.gate;
    if (!options.device_id.empty()) run.env.emplace_back("CUDA_VISIBLE_DEVICES", options.device_id);
    run.max_data_bytes = options.max_data_bytes;
    run.max_processes = options.max_processes;
    run.sanitize_failures = options.sanitize_failures;
    run.sanitize_every_test = options.sanitize_every_test;
    run.profile_failures = options.profile_failures;
    run.profile_every_test = options.profile_every_test;
    if (options.sandbox) {
        run.bwrap = options.bwrap ? options.bwrap : find_bubblewrap();
        // Hidden: the references, the known-wrong versions and cheats, and the
        // build folder (compiled solutions, other variants' evidence). Shown
        // again: the program's own library, which lesson07's tests read.
        run.sandbox.kept = {m.source_dir};
        run.sandbox.hidden = {m.source_dir / "solutions", m.source_dir / "grader" / "mutants",
                              m.source_dir / "grader" / "cheats", m.build_dir};
        run.sandbox.hidden.insert(run.sandbox.hidden.end(), options.also_hidden.begin(), options.also_hidden.end());
        if (!program.library.empty()) run.sandbox.readable.push_back(program.library);
        report.notes.push_back(describe_sandbox(run.bwrap));
    }
    try {
        graded_run graded = run_graded_tests(run);
        report.tests = std::move(graded.tests);
        report.notes.insert(report.notes.end(), graded.notes.begin(), graded.notes.end());
        report.evidence_seconds = graded.evidence_seconds;
    } catch (const std::exception& e) {
        throw user_error(build_error, fmt::format("could not run {}: {}", program.tests.string(), e.what()));
    }
    return report;
}

}  // namespace grader
