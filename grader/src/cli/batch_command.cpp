// grader batch LESSON SUBMISSIONS: grade a whole class, each submission in a
// sandboxed scratch folder of its own, and write per-student reports, a
// gradebook and a class report. What is already graded (same files, same
// course) is skipped, so an interrupted batch resumes where it stopped.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <random>
#include <thread>

#include "batch/class_report.hpp"
#include "batch/engine.hpp"
#include "batch/lms_export.hpp"
#include "batch/measured_grading.hpp"
#include "batch/memory_size.hpp"
#include "batch/outputs.hpp"
#include "batch/result_cache.hpp"
#include "batch/selection.hpp"
#include "batch/similarity_report.hpp"
#include "checkout/build.hpp"
#include "checkout/context.hpp"
#include "checkout/course_commit.hpp"
#include "cli/commands.hpp"
#include "course/cpus.hpp"
#include "report/progress_bar.hpp"
#include "run/runner.hpp"
#include "run/sandbox.hpp"
#include "slurm/engine.hpp"
#include "slurm/task_refusal.hpp"
#include "system/atomic_file.hpp"

namespace grader {

namespace {
using nlohmann::json;

std::atomic<bool> stop_requested{false};

// The first Ctrl-C lets the submissions in progress finish (nothing is lost:
// every result is stored as it comes); a second one ends at once.
void on_interrupt(int) {
    if (stop_requested.exchange(true)) {
        std::signal(SIGINT, SIG_DFL);
        std::raise(SIGINT);
        return;
    }
    static const char message[] =
        "\ngrader batch: stopping after the submissions in progress (Ctrl-C again to stop now; "
        "a rerun resumes)\n";
    [[maybe_unused]] auto written = write(STDERR_FILENO, message, sizeof message - 1);
}

// Each test's limit from the reference solution's time for it, where `grader
// verify` measured that on this GPU model (every GPU here being that one);
// elsewhere every test has --timeout.
test_time_limits test_limits_for(const manifest& m, const lesson_info& lesson, const std::vector<gpu_slot>& gpus,
                                 std::chrono::seconds per_test_limit) {
    const auto measured = load_measured_grading(m.build_dir, lesson.id);
    if (!measured || gpus.empty()) return {};
    for (const auto& g : gpus)
        if (g.name != gpus.front().name) return {};
    return test_limits_from(*measured, gpus.front().name, per_test_limit);
}

// The folders a student's build and tests must not see beyond the course's
// own secrets: the class's submissions, the batch's results, other scratch folders.
std::vector<fs::path> hidden_from_students(const manifest& m, const std::vector<fs::path>& batch_paths) {
    std::vector<fs::path> hidden{m.source_dir / "solutions", m.source_dir / "grader" / "mutants",
                                 m.source_dir / "grader" / "cheats", m.source_dir / "grader" / "textbooks"};
    hidden.insert(hidden.end(), batch_paths.begin(), batch_paths.end());
    return hidden;
}

// The embedded engine: the class (or, in a Slurm task, one chunk of it)
// graded on this machine.
int grade_here(const common_args& common, const batch_args& args, bool lms_told) {
    const std::optional<double> similarity_threshold = parse_similarity_threshold(args.similarity);  // before any work
    const std::vector<int> declared_gpus = declared_gpu_architectures(args.gpu_archs);
    // Fails closed: where bubblewrap cannot run, nothing is graded unless
    // --no-sandbox says to go without it.
    const std::optional<fs::path> bwrap = batch_sandbox(args.no_sandbox);
    const batch_class klass = open_batch_class(common, args);
    const manifest& m = klass.course;
    const lesson_info& lesson = klass.lesson;
    const fs::path& out = klass.out;
    const std::vector<const submission*>& chosen = klass.chosen;
    if (lms_told) keep_lms_settings(out, args.roster, args.lms_column);

    // The GPUs here must run the build's code (a build folder configured on a
    // machine without a GPU holds sm_90 only): checked before anything is built.
    const std::vector<gpu_slot> gpus = visible_gpus();
    if (const std::string problem = gpus_the_build_cannot_run(m, gpus, declared_gpus); !problem.empty())
        throw grading_refused("machine code for its GPU (the build has none)", problem);

    // The course: its own targets built, and the per-submission build derived from them.
    if (args.build) build_course_for_batch(m, lesson);
    const submission_recipe recipe = derive_submission_recipe(m, lesson);
    const fs::path logs = out / "logs";
    // The tasks of a cluster job start together, sharing OUT: each lists the
    // tests into a folder of its own.
    const std::string chunk_index = args.chunk.substr(0, args.chunk.find('/'));
    const fs::path listing_dir = args.chunk.empty() ? logs : logs / ("chunk-" + chunk_index);
    fs::create_directories(listing_dir);
    const std::vector<listed_test> tests = list_graded_tests(lesson.variant("solution")->tests, listing_dir);
    // Fails closed without what these tests need (libelf, the recorder, the
    // launcher; the tools that explain, where GPU tests run), as without the sandbox.
    refuse_without_grading_needs(observe_grading_needs(&m, grading_lookups::of_this_machine()), tests, !gpus.empty(),
                                 args.no_sandbox);
    const std::string commit = course_commit(m.source_dir);

    // What is left to grade.
    const result_cache cache(out / "students");
    batch_todo todo = sort_out_graded(chosen, lesson.id, commit, cache, args.force);
    const std::vector<batch_job>& jobs = todo.to_grade;
    std::vector<batch_result> results = std::move(todo.already_graded);
    const std::size_t skipped = results.size();
    if (skipped > 0) std::cout << fmt::format("{} already graded with these files and this course (--force regrades them)\n", skipped);

    // How: sandboxed (unless --no-sandbox); on every GPU here.
    engine_settings settings;
    settings.gpus = gpus;
    const int cpus = course::usable_cpus();
    settings.builders = args.jobs > 0 ? args.jobs : std::max(1, cpus / 2);
    settings.pause_sharers = args.pause_sharers;
    settings.graders_per_gpu =
        args.per_gpu > 0 ? args.per_gpu : graders_for(cpus, static_cast<int>(settings.gpus.size()));
    // A folder of this run's own, removed at the end: never --scratch itself
    // (it may be /tmp, or a cluster node's $TMPDIR).
    settings.scratch_root = (args.scratch ? fs::absolute(*args.scratch) : fs::temp_directory_path()) /
                            fmt::format("grader-batch-{}", getpid());
    settings.keep_scratch = args.keep_scratch;
    settings.bwrap = bwrap;
    settings.hidden = hidden_from_students(m, {klass.submissions_path, out, settings.scratch_root});
    settings.build.time = std::chrono::seconds(args.build_timeout_s);
    settings.build.max_data_bytes = parse_memory(args.memory);
    settings.grading.seed = args.seed.value_or(std::random_device{}() % 100000);
    settings.grading.per_test_limit = std::chrono::seconds(args.timeout_s);
    settings.grading.test_limits = test_limits_for(m, lesson, settings.gpus, settings.grading.per_test_limit);
    settings.grading.sandbox = settings.bwrap.has_value();
    settings.grading.no_sandbox = !settings.bwrap;
    settings.grading.bwrap = settings.bwrap;
    settings.grading.also_hidden = settings.hidden;
    settings.grading.max_data_bytes = settings.build.max_data_bytes;
    settings.grading.max_processes = settings.build.max_processes;
    settings.graded_tests = tests;
    settings.logs_dir = logs;

    std::cout << fmt::format("seed {}; {} builder(s); ", settings.grading.seed, settings.builders);
    if (settings.gpus.empty())
        std::cout << "no GPU here: the GPU tests cannot run, so no submission gets a score (a build failure still "
                     "scores 0); grade the class on a GPU machine\n";
    else
        for (const auto& g : settings.gpus)
            std::cout << fmt::format("{} grader(s) on GPU {} ({}); ", settings.graders_per_gpu, g.id, g.name);
    if (!settings.gpus.empty()) std::cout << "\n";
    const test_time_limits& limits = settings.grading.test_limits;
    if (!limits.by_test.empty())
        std::cout << fmt::format("time limits: {} tests have one of their own, {}; the others {} s (--timeout)\n",
                                 limits.by_test.size(), limits.why, args.timeout_s);
    else if (!limits.why.empty())
        std::cout << fmt::format("time limits: {} s a test (--timeout), shorter than any test's own ({})\n",
                                 args.timeout_s, limits.why);
    else if (!settings.gpus.empty())
        std::cout << fmt::format("time limits: {} s a test (--timeout); `grader verify {}` on this GPU would give "
                                 "each test a limit from the reference solution's time, so that a hang costs "
                                 "less\n",
                                 args.timeout_s, lesson.id);
    if (!settings.bwrap)
        std::cout << "WARNING: NOT SANDBOXED (--no-sandbox): students' code runs with your rights and can read the "
                     "reference solutions and each other's files; every report, the gradebook and the class report "
                     "say so\n";

    // The class report's Python is found, and imports matplotlib, while the class is graded.
    const bool class_report = args.report && args.chunk.empty() && !args.only_students;
    std::optional<class_report_ahead> report_ahead;
    if (class_report) report_ahead.emplace(class_report_script(m));

    // Grade, storing each result as it comes.
    std::signal(SIGINT, on_interrupt);
    const auto started = std::chrono::steady_clock::now();
    int done = 0;
    progress_bar bar(lesson.id, static_cast<int>(jobs.size()), stderr, "submissions to grade");
    const engine_stats stats = run_local_engine(
        m, lesson, recipe, jobs, settings,
        [&](const batch_job& job, batch_result result) {
            cache.store(result, job.key);
            results.push_back(std::move(result));
        },
        [&](const std::string& event) {
            if (event.rfind("graded ", 0) == 0) ++done;
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            std::string eta;
            if (done > 0) {
                const double per = elapsed / done;
                eta = fmt::format(" · {:.1f}/min · ETA {}", 60.0 / per,
                                  minutes_and_seconds(per * static_cast<double>(jobs.size() - done)));
            }
            bar.update(done, event + eta);
            // In a log (a cluster job's, CI's) a line per submission instead of a bar.
            if (!bar.on_terminal() && event.rfind("graded ", 0) == 0)
                std::cerr << fmt::format("{} ({}/{}{})\n", event, done, jobs.size(), eta);
        },
        stop_requested);
    std::signal(SIGINT, SIG_DFL);
    std::error_code ec;
    if (!settings.keep_scratch) fs::remove_all(settings.scratch_root, ec);

    // What the batch came to.
    const auto [graded, failed_builds, not_graded_count] = count_outcomes(results);
    const std::size_t left = chosen.size() - results.size();
    json summary = {{"lesson", lesson.id},
                    {"course_commit", commit},
                    {"seed", settings.grading.seed},
                    {"test_limits", settings.grading.test_limits.why},
                    {"chunk", args.chunk},
                    {"submissions", chosen.size()},
                    {"graded", graded},
                    {"build_failed", failed_builds},
                    {"not_graded", not_graded_count},
                    {"already_graded", skipped},
                    {"left_by_interrupt", left},
                    {"sandboxed", settings.bwrap.has_value()},
                    {"builders", settings.builders},
                    {"graders_per_gpu", settings.graders_per_gpu},
                    {"sharers_paused_by_timed_tests", stats.pausing},
                    {"gpus", json::array()},
                    {"seconds", {{"wall", stats.wall_s},
                                 {"build_summed", stats.build_s},
                                 {"grade_summed", stats.grade_s},
                                 {"evidence_summed", stats.evidence_s},
                                 {"gpu_alone", stats.gpu_alone_s},
                                 {"gpu_shared", stats.gpu_shared_s},
                                 {"paused", stats.paused_s},
                                 {"gpu_held_up", stats.gpu_held_up_s},
                                 {"scores_final", scores_final_seconds(stats.timeline)}}}};
    for (const auto& g : settings.gpus) summary["gpus"].push_back({{"id", g.id}, {"name", g.name}});
    // Who did what when (batch/timeline.hpp): [kind, start, end] in seconds since the batch began.
    summary["timeline_started_unix"] = stats.started_unix;
    summary["timeline"] = json::array();
    for (const auto& t : stats.timeline) {
        json spans = json::array();
        for (const auto& span : t.spans) spans.push_back({span.kind, span.start, span.end});
        summary["timeline"].push_back({{"student", t.student}, {"spans", spans}});
    }
    const std::string summary_name = args.chunk.empty() ? "batch.json" : fmt::format("batch-chunk-{}.json", chunk_index);
    write_file_atomically(logs / summary_name, summary.dump(2) + "\n");

    std::cout << fmt::format("\n{}: {} graded, {} did not compile, {} not graded{}{}\n", lesson.id, graded,
                             failed_builds, not_graded_count,
                             left > 0 ? fmt::format(", {} left for a rerun (interrupted)", left) : "",
                             settings.bwrap ? "" : "; NOT SANDBOXED (--no-sandbox): a rerun where bubblewrap runs "
                                                   "grades them again");
    if (stats.graded > 0) {
        // Where failures were explained, the scores were final sooner than that.
        const double scores_s = scores_final_seconds(stats.timeline);
        const std::string scores =
            stats.evidence_s > 0 && scores_s > 0 && scores_s < stats.wall_s
                ? fmt::format("; the scores were final after {} ({:.1f}/min), the explanations came after",
                              minutes_and_seconds(scores_s), 60.0 * stats.graded / scores_s)
                : "";
        std::cout << fmt::format(
            "time: {} for {} submission(s) ({:.1f}/min){}; builds {:.0f} s and grading {:.0f} s summed over "
            "workers ({:.0f} s of it explaining failures); the GPU was held alone (timed tests) {:.0f} s "
            "and shared {:.0f} s\n",
            minutes_and_seconds(stats.wall_s), stats.graded, 60.0 * stats.graded / std::max(stats.wall_s, 1e-9),
            scores, stats.build_s, stats.grade_s, stats.evidence_s, stats.gpu_alone_s, stats.gpu_shared_s);
    }

    if (class_report) {
        // Who looks copied from whom: no GPU, and a second or so for a class of 300.
        const std::optional<class_similarity> similarity = compare_class_if_asked(m, lesson, chosen, similarity_threshold);
        write_class_outputs(m, lesson, out, results, similarity ? &*similarity : nullptr, &*report_ahead);
    }
    std::cout << "per student: " << cache.root().string() << "/<student>/report.txt\n";
    if (left > 0 || not_graded_count > 0) return not_graded;
    return all_passed;
}

}  // namespace

int cmd_batch(const common_args& common, const batch_args& args) {
    if (args.roster) read_roster(*args.roster);  // a bad roster is a usage error before any work
    const bool lms_told = args.roster || !args.lms_column.empty();
    // Whichever run writes the gradebook (this one, a Slurm job's end, a
    // collect) reads the roster and column kept in the batch folder.
    if (args.lesson == "collect") {
        if (lms_told) keep_lms_settings(fs::absolute(args.submissions), args.roster, args.lms_column);
        return collect_slurm_batch(common, args.submissions);
    }
    if (args.engine == "slurm") {
        if (lms_told) {
            const manifest course = open_build(common.build_dir);
            keep_lms_settings(batch_folder(course, find_lesson(course, args.lesson), args), args.roster, args.lms_column);
        }
        return run_slurm_batch(common, args);
    }
    try {
        return grade_here(common, args, lms_told);
    } catch (const grading_refused& refused) {
        // A Slurm task (--chunk, -o: slurm/engine.cpp's task command) leaves
        // why its node cannot grade for the batch that submitted the job.
        if (!args.chunk.empty() && args.output)
            record_task_refusal(fs::absolute(*args.output), std::stoi(args.chunk.substr(0, args.chunk.find('/'))),
                                refused.lacks, refused.what());
        throw;
    }
}

}  // namespace grader
