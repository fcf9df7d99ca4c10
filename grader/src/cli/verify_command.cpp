// grader verify [LESSON...]: every solution gets full marks, every untouched
// skeleton loses every correctness test, every known-wrong version in
// grader/mutants and every known cheat in grader/cheats is caught where its
// expect.json says, with the diagnosis it names, and every textbook form in
// grader/textbooks (the lesson's technique written plainly) gets full marks:
// no speed threshold may ask for more than the lesson teaches.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "batch/measured_grading.hpp"
#include "checkout/build.hpp"
#include "checkout/context.hpp"
#include "cli/commands.hpp"
#include "cli/verify_checks.hpp"
#include "course/device_info.hpp"
#include "report/formats.hpp"
#include "run/grade.hpp"

namespace grader {

namespace {
struct verdict {
    std::string what;     // "solution", "skeleton", "mutant hang"
    int score = 0, max = 0;
    std::string outcome;  // what it showed, when all is well
    std::vector<std::string> problems;
    std::vector<std::string> figures;  // the speed tests' margins: each threshold's, read off one run
};

// "Test.Id: figure" for each speed test the judge measured.
std::vector<std::string> speed_figures(const lesson_report& r) {
    std::vector<std::string> lines;
    for (const auto& t : r.tests)
        if (t.performance && !t.figure.empty()) lines.push_back(fmt::format("{}: {}", t.id, t.figure));
    return lines;
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw user_error(build_error, fmt::format("cannot read {}", file.string()));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}
}  // namespace

int cmd_verify(const common_args& common, const verify_args& args) {
    const manifest m = open_build(common.build_dir);
    std::vector<const lesson_info*> lessons;
    for (const auto& name : args.lessons) lessons.push_back(&find_lesson(m, name));
    if (lessons.empty())
        for (const auto& l : m.lessons) lessons.push_back(&l);

    if (!course::has_device()) {
        std::cout << fmt::format("SKIPPED: no CUDA device: {}. Nothing was verified: `grader verify` needs a GPU.\n",
                                 course::device_status().reason);
        return not_graded;
    }

    if (args.build) {
        std::vector<std::string> targets;
        for (const auto* l : lessons)
            for (const auto& [_, v] : l->variants) targets.push_back(v.tests_target);
        std::cout << fmt::format("building {} test programs...\n", targets.size()) << std::flush;
        const build_result built = build_targets(m, targets);
        if (!built.ok) {
            std::cout << fmt::format("the build failed, so nothing was verified:\n  {}\nfull log: {}\n", built.digest,
                                     built.log.string());
            return build_error;
        }
    }

    const bool color = wants_color(STDOUT_FILENO);
    grade_options options;
    options.seed = args.seed;
    options.per_test_limit = std::chrono::seconds(args.timeout_s);
    options.sandbox = true;  // a graded run: the variants must not see the references
    int violations = 0;
    const course::device_properties device = course::query_device();
    std::cout << fmt::format("verifying on {} · seed {}\n", device.summary(), args.seed);
    // Each verdict is printed as soon as it is in: a lesson takes minutes,
    // and a run cut short keeps what it had found.
    auto show = [&](const verdict& v) {
        const bool ok = v.problems.empty();
        const std::string mark = ok ? (color ? "\x1b[32m✓\x1b[0m" : "✓") : (color ? "\x1b[31m✗\x1b[0m" : "✗");
        std::cout << fmt::format("  {} {:<28} {:>3}/{:<3} {}\n", mark, v.what, v.score, v.max,
                                 ok ? v.outcome : fmt::format("{} problem(s)", v.problems.size()));
        for (const auto& p : v.problems) std::cout << "      " << p << "\n";
        for (const auto& f : v.figures) std::cout << "      " << (color ? "\x1b[2m" + f + "\x1b[0m" : f) << "\n";
        std::cout << std::flush;
        violations += static_cast<int>(v.problems.size());
    };
    for (const auto* lesson : lessons) {
        std::cout << fmt::format("\n{} · {}\n", lesson->id, lesson->title) << std::flush;
        const auto lesson_start = std::chrono::steady_clock::now();
        double evidence_seconds = 0;
        // How long each graded run took: the Slurm engine's time limit.
        measured_grading measured;
        measured.lesson = lesson->id;
        measured.gpu = device.summary();
        measured.date = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
        measured.timeout_s = args.timeout_s;
        auto judge = [&](const std::string& variant, const std::string& label, auto check, std::string outcome) {
            const auto run_start = std::chrono::steady_clock::now();
            const lesson_report r = grade_variant(m, *lesson, variant, options);
            const double run_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
            ++measured.runs;
            if (run_seconds > measured.slowest_s) {
                measured.slowest_s = run_seconds;
                measured.slowest = label;
            }
            evidence_seconds += r.evidence_seconds;
            show({label, r.score(), r.max_score(), std::move(outcome), check(r), speed_figures(r)});
        };
        judge("solution", "solution", [&](const lesson_report& r) {
            // Each test's time: the batch's limit for it (test_limits_from).
            for (const auto& t : r.tests)
                if (t.status == test_status::passed) measured.solution_test_ms[t.id] = t.ms;
            return check_full_marks(r);
        }, "full marks");
        judge("exercise", "skeleton", check_loses_all_correctness, "loses every correctness test");
        // Known-wrong versions and known cheats alike: each caught as its expect.json says.
        for (const auto& [kind, names] : {std::pair{std::string("mutant"), lesson->mutants()},
                                          std::pair{std::string("cheat"), lesson->cheats()}}) {
            for (const auto& name : names) {
                const std::string variant = kind + "_" + name;
                const fs::path file = lesson->variant(variant)->source_dir / "expect.json";
                const expectation e = parse_expectation(read_text(file));
                if (const auto why_not = unmet_need(e, device.major, device.minor)) {
                    show({kind + " " + name, 0, 0, "passed over: " + *why_not, {}, {}});
                    continue;
                }
                judge(variant, kind + " " + name, [&](const lesson_report& r) { return check_expectation(r, e); },
                      "caught: " + e.mistake);
            }
        }
        for (const auto& name : lesson->textbooks()) {
            const std::string variant = "textbook_" + name;
            const fs::path file = lesson->variant(variant)->source_dir / "about.json";
            const textbook_form form = parse_textbook_form(read_text(file));
            judge(variant, "textbook " + name, [&](const lesson_report& r) { return check_textbook_form(r, form); },
                  "full marks: " + form.technique);
        }

        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - lesson_start).count();
        // What the explanations cost: compute-sanitizer's reruns and Nsight
        // Compute's profiles of failed tests, after every verdict was in.
        std::cout << fmt::format("{}: {:.0f} s, of which {:.0f} s explaining failures\n", lesson->id, seconds,
                                 evidence_seconds);
        if (measured.runs > 0) save_measured_grading(m.build_dir, measured);
    }
    std::cout << (violations ? fmt::format("\nverify: {} problem(s)\n", violations) : "\nverify: all as expected\n");
    return violations ? some_failed : all_passed;
}

}  // namespace grader
