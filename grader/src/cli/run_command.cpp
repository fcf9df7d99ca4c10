// grader run LESSON: build the student's exercise, run its graded tests in
// isolation, report, remember the best score.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <iostream>
#include <optional>
#include <random>
#include <tuple>

#include "checkout/build.hpp"
#include "checkout/context.hpp"
#include "cli/attempt.hpp"
#include "cli/commands.hpp"
#include "cli/run_timeline.hpp"
#include "cli/test_ids.hpp"
#include "course/device_info.hpp"
#include "report/formats.hpp"
#include "run/grade.hpp"
#include "run/sandbox.hpp"
#include "system/step_timings.hpp"

namespace grader {

namespace {
std::string render(const lesson_report& report, const std::string& format, const text_style& style) {
    if (format == "json") return format_json(report);
    if (format == "gradescope") return format_gradescope(report);
    if (format == "junit") return format_junit(report);
    return format_text(report, style);
}

unsigned long long fresh_seed() { return std::random_device{}() % 100000; }
}  // namespace

int cmd_run(const common_args& common, const run_args& args) {
    const manifest m = open_build(common.build_dir);
    const lesson_info& lesson = find_lesson(m, args.lesson);
    if (args.output) check_output_path(m, *args.output);

    std::string variant_name = args.solution ? "solution" : "exercise";
    if (!args.mutant.empty()) variant_name = "mutant_" + args.mutant;
    if (!args.cheat.empty()) variant_name = "cheat_" + args.cheat;
    if (!args.textbook.empty()) variant_name = "textbook_" + args.textbook;
    if (m.student_edition()) {
        const std::string lacks = student_edition_lacks(lesson.id, variant_name);
        if (!lacks.empty()) throw user_error(usage_error, lacks);
    }
    const variant_info* variant = lesson.variant(variant_name);
    if (!variant) {
        const auto [kind, name, known] = !args.cheat.empty()      ? std::tuple{"cheat", args.cheat, lesson.cheats()}
                                         : !args.textbook.empty() ? std::tuple{"textbook form", args.textbook, lesson.textbooks()}
                                                                  : std::tuple{"mutant", args.mutant, lesson.mutants()};
        const std::string meant = did_you_mean(close_matches(name, known));
        throw user_error(usage_error,
                         known.empty()
                             ? fmt::format("{} has no '{}' build. Known-wrong versions, cheats and textbook forms are "
                                           "built with -DCOURSE_BUILD_MUTANTS=ON.", lesson.id, variant_name)
                             : fmt::format("{} has no {} '{}'{} Known: {}.", lesson.id, kind, name,
                                           meant.empty() ? "." : "; " + meant, fmt::join(known, ", ")));
    }

    // A graded run fails closed: where bubblewrap cannot run it grades
    // nothing, before the build, unless told to go without (--no-sandbox).
    std::optional<fs::path> bwrap;
    if (args.sandbox) {
        const bubblewrap_search found = search_bubblewrap();
        if (!found.bwrap) throw user_error(build_error, sandbox_refusal(found.problem));
        bwrap = found.bwrap;
    }

    // The report goes to stdout as text unless a machine format is asked for
    // without -o; with -o the file gets the format and the terminal the text.
    const bool text_to_terminal = args.format == "text" || args.output.has_value();
    const bool color = wants_color(STDOUT_FILENO);

    // `--timings`: spans from here on; printed after the report.
    std::optional<step_timings> timings;
    if (args.timings) timings.emplace();
    step_timings* const timed = timings ? &*timings : nullptr;

    // The grader's own look at the GPU starts the CUDA runtime, about 0.1 s:
    // it runs beside the build, and grading finds it done.
    std::future<void> gpu_look = std::async(std::launch::async, [] { course::device_status(); });
    if (args.build) {
        const step_timings::measure build_step(timed, "build (cmake --build)");
        if (text_to_terminal) std::cout << fmt::format("building {} ({})...\n", lesson.id, variant_name) << std::flush;
        const build_result built = build_targets(m, targets_for_grading(lesson, variant_name));
        if (!built.ok) {
            std::cout << compile_failure_text(lesson, built);
            return build_error;
        }
    }
    // A test id that names no test is a usage error, not a run that grades
    // nothing: the ids come from the judge's list, which the build has made.
    if (!args.tests.empty()) check_test_ids(lesson.id, lesson_tests(m, lesson, /*build_if_missing=*/false), args.tests);

    grade_options options;
    options.seed = args.seed.value_or(fresh_seed());
    options.per_test_limit = std::chrono::seconds(args.timeout_s);
    options.only = args.tests;
    options.sandbox = args.sandbox;
    options.bwrap = bwrap;
    options.no_sandbox = args.no_sandbox;
    options.sanitize_every_test = args.sanitize;
    options.profile_every_test = args.profile;
    options.timings = timed;
    const lesson_report report = grade_variant(m, lesson, variant_name, options);
    std::optional<step_timings::measure> report_step;
    if (timed) report_step.emplace(timed, "the report, and the best score remembered");

    // A file gets the full view; the terminal the one asked for, wrapped to its width.
    const text_style file_style{false, true, true, 0};
    const text_style terminal_style{color, true, args.verbose, terminal_width(STDOUT_FILENO)};
    if (args.output) {
        std::ofstream out(*args.output);
        if (!out) throw user_error(usage_error, fmt::format("cannot write {}", args.output->string()));
        out << render(report, args.format, file_style);
    }
    if (text_to_terminal) std::cout << "\n" << format_text(report, terminal_style);
    else std::cout << render(report, args.format, file_style);

    if (args.timeline) show_timelines(m, lesson, variant_name, report, text_to_terminal ? std::cout : std::cerr);
    if (args.tests.empty()) remember_score(m, report, std::cerr);  // a partial run is no score
    if (timings) {
        report_step.reset();
        (text_to_terminal ? std::cout : std::cerr) << "\n" << timings->format();
    }

    if (report.count(test_status::skipped) > 0) return not_graded;
    return report.score() == report.max_score() ? all_passed : some_failed;
}

}  // namespace grader
