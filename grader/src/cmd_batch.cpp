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

#include "atomic_file.hpp"
#include "batch_engine.hpp"
#include "build.hpp"
#include "class_report.hpp"
#include "commands.hpp"
#include "context.hpp"
#include "course_commit.hpp"
#include "gradebook.hpp"
#include "progress_bar.hpp"
#include "result_cache.hpp"
#include "runner.hpp"
#include "sandbox.hpp"

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

std::optional<submissions_kind> kind_from(const std::string& name) {
    if (name == "folders") return submissions_kind::student_folders;
    if (name == "classroom") return submissions_kind::classroom_clones;
    if (name == "gradescope") return submissions_kind::gradescope_export;
    return std::nullopt;
}

// "2/8" -> the submissions of part 2 (counting from 0) of 8 nearly equal parts.
std::pair<std::size_t, std::size_t> chunk_range(const std::string& chunk, std::size_t count) {
    unsigned index = 0, parts = 0;
    char slash = 0;
    std::istringstream in(chunk);
    if (!(in >> index >> slash >> parts) || slash != '/' || parts == 0 || index >= parts || !in.eof())
        throw user_error(usage_error, fmt::format("--chunk {}: write it as I/N with 0 <= I < N, e.g. --chunk 0/4",
                                                  chunk));
    return {count * index / parts, count * (index + 1) / parts};
}

long long parse_memory(const std::string& text) {
    std::size_t used = 0;
    double number = 0;
    try {
        number = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string unit = text.substr(used);
    const double scale = unit == "" || unit == "G" ? 1024.0 * 1024 * 1024
                         : unit == "M"             ? 1024.0 * 1024
                         : unit == "T"             ? 1024.0 * 1024 * 1024 * 1024
                                                   : 0;
    if (used == 0 || scale == 0 || number <= 0)
        throw user_error(usage_error, fmt::format("--memory {}: write a size such as 16G or 4096M", text));
    return static_cast<long long>(number * scale);
}

std::string minutes_and_seconds(double s) {
    const int whole = static_cast<int>(s + 0.5);
    return whole >= 60 ? fmt::format("{}m{:02}s", whole / 60, whole % 60) : fmt::format("{}s", whole);
}

// The folders a student's build and tests must not see beyond the course's
// own secrets: the class's submissions, the batch's results, other scratch folders.
std::vector<fs::path> hidden_from_students(const manifest& m, const std::vector<fs::path>& batch_paths) {
    std::vector<fs::path> hidden{m.source_dir / "solutions", m.source_dir / "grader" / "mutants",
                                 m.source_dir / "grader" / "cheats"};
    hidden.insert(hidden.end(), batch_paths.begin(), batch_paths.end());
    return hidden;
}
}  // namespace

int cmd_batch(const common_args& common, const batch_args& args) {
    const manifest m = open_build(common.build_dir);
    const lesson_info& lesson = find_lesson(m, args.lesson);

    const fs::path submissions_path = fs::absolute(args.submissions).lexically_normal();
    const fs::path out = fs::absolute(args.output.value_or(fs::path("batch-" + lesson.id))).lexically_normal();
    check_output_path(m, out);
    if (auto rel = out.lexically_relative(submissions_path); !rel.empty() && *rel.begin() != "..")
        throw user_error(usage_error, fmt::format("the batch folder {} lies inside SUBMISSIONS; nothing is ever "
                                                  "written there: choose another with -o",
                                                  out.string()));
    std::optional<submissions_kind> kind;
    if (args.kind != "auto") kind = kind_from(args.kind);
    const std::optional<std::pair<std::size_t, std::size_t>> chunk_only =
        args.chunk.empty() ? std::nullopt : std::optional(chunk_range(args.chunk, 0));  // checked early

    // The class.
    const submission_set set = read_submissions(submissions_path, rules_for(lesson), kind);
    std::cout << fmt::format("{}: {} submission(s) in {} ({})\n", lesson.id, set.submissions.size(),
                             submissions_path.string(), to_string(set.kind));
    for (const auto& note : set.notes) std::cout << "  note: " << note << "\n";
    std::size_t first = 0, last = set.submissions.size();
    if (chunk_only) std::tie(first, last) = chunk_range(args.chunk, set.submissions.size());

    // The course: its own targets built, and the per-submission build derived from them.
    if (args.build) {
        std::cout << fmt::format("building the course's {} tests and judge...\n", lesson.id) << std::flush;
        const build_result built = build_targets(m, {lesson.variant("exercise")->tests_target,
                                                     lesson.variant("solution")->tests_target});
        if (!built.ok)
            throw user_error(build_error, fmt::format("the course itself does not build, so no submission can be "
                                                      "graded: {}\n  full log: {}",
                                                      built.digest, built.log.string()));
    }
    const submission_recipe recipe = derive_submission_recipe(m, lesson);
    const fs::path logs = out / "logs";
    fs::create_directories(logs);
    const std::vector<listed_test> tests = list_graded_tests(lesson.variant("solution")->tests, logs);
    const std::string commit = course_commit(m.source_dir);

    // What is left to grade.
    const result_cache cache(out / "students");
    std::vector<batch_job> jobs;
    std::vector<batch_result> results;
    std::size_t skipped = 0;
    for (std::size_t i = first; i < last; ++i) {
        const submission& s = set.submissions[i];
        const std::string key = content_key(lesson.id, commit, s.files);
        if (!args.force && cache.is_done(s.student, key)) {
            if (auto stored = cache.load(s.student)) {
                results.push_back(std::move(*stored));
                ++skipped;
                continue;
            }
        }
        jobs.push_back({&s, key});
    }
    if (skipped > 0) std::cout << fmt::format("{} already graded with these files and this course (--force regrades them)\n", skipped);

    // How: sandboxed where bubblewrap works; on every GPU here.
    engine_settings settings;
    settings.gpus = visible_gpus();
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    settings.builders = args.jobs > 0 ? args.jobs : static_cast<int>(std::max(1u, cpus / 2));
    settings.graders_per_gpu = args.per_gpu;
    settings.scratch_root = args.scratch ? fs::absolute(*args.scratch)
                                         : fs::temp_directory_path() / fmt::format("grader-batch-{}", getpid());
    settings.keep_scratch = args.keep_scratch;
    settings.bwrap = find_bubblewrap();
    settings.hidden = hidden_from_students(m, {submissions_path, out, settings.scratch_root});
    settings.build.time = std::chrono::seconds(args.build_timeout_s);
    settings.build.max_data_bytes = parse_memory(args.memory);
    settings.grading.seed = args.seed.value_or(std::random_device{}() % 100000);
    settings.grading.per_test_limit = std::chrono::seconds(args.timeout_s);
    settings.grading.sandbox = true;
    settings.grading.bwrap = settings.bwrap;
    settings.grading.also_hidden = settings.hidden;
    settings.grading.max_data_bytes = settings.build.max_data_bytes;
    settings.grading.max_processes = settings.build.max_processes;
    settings.graded_tests = tests;
    settings.logs_dir = logs;

    std::cout << fmt::format("seed {}; {} builder(s); ", settings.grading.seed, settings.builders);
    if (settings.gpus.empty())
        std::cout << "no GPU: the GPU tests will be skipped and those submissions reported as not graded\n";
    else
        for (const auto& g : settings.gpus)
            std::cout << fmt::format("{} grader(s) on GPU {} ({}); ", settings.graders_per_gpu, g.id, g.name);
    if (!settings.gpus.empty()) std::cout << "\n";
    if (!settings.bwrap) std::cout << "WARNING: " << describe_sandbox(std::nullopt) << "\n";

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
    int graded = 0, failed_builds = 0, not_graded_count = 0;
    for (const auto& r : results) {
        switch (r.state()) {
            case batch_result::outcome::graded: ++graded; break;
            case batch_result::outcome::build_failed: ++failed_builds; break;
            case batch_result::outcome::not_graded: ++not_graded_count; break;
        }
    }
    const std::size_t left = (last - first) - results.size();
    json summary = {{"lesson", lesson.id},
                    {"course_commit", commit},
                    {"seed", settings.grading.seed},
                    {"chunk", args.chunk},
                    {"submissions", last - first},
                    {"graded", graded},
                    {"build_failed", failed_builds},
                    {"not_graded", not_graded_count},
                    {"already_graded", skipped},
                    {"left_by_interrupt", left},
                    {"sandboxed", settings.bwrap.has_value()},
                    {"builders", settings.builders},
                    {"graders_per_gpu", settings.graders_per_gpu},
                    {"gpus", json::array()},
                    {"seconds", {{"wall", stats.wall_s},
                                 {"build_summed", stats.build_s},
                                 {"grade_summed", stats.grade_s},
                                 {"gpu_alone", stats.gpu_alone_s}}}};
    for (const auto& g : settings.gpus) summary["gpus"].push_back({{"id", g.id}, {"name", g.name}});
    const std::string summary_name = args.chunk.empty() ? "batch.json"
                                                        : fmt::format("batch-chunk-{}.json", args.chunk.substr(0, args.chunk.find('/')));
    write_file_atomically(logs / summary_name, summary.dump(2) + "\n");

    std::cout << fmt::format("\n{}: {} graded, {} did not compile, {} not graded{}\n", lesson.id, graded,
                             failed_builds, not_graded_count,
                             left > 0 ? fmt::format(", {} left for a rerun (interrupted)", left) : "");
    if (stats.graded > 0)
        std::cout << fmt::format(
            "time: {} for {} submission(s) ({:.1f}/min); builds {:.0f} s and grading {:.0f} s summed over "
            "workers; GPU held by timed tests {:.0f} s\n",
            minutes_and_seconds(stats.wall_s), stats.graded, 60.0 * stats.graded / std::max(stats.wall_s, 1e-9),
            stats.build_s, stats.grade_s, stats.gpu_alone_s);

    if (args.report && args.chunk.empty()) {
        write_gradebook(out / "gradebook.csv", results);
        std::cout << "gradebook: " << (out / "gradebook.csv").string() << "\n";
        const json data = class_report_data(lesson.id, lesson.title, results);
        try {
            write_class_report(data, out / "report", class_report_script(m));
            std::cout << "class report: " << (out / "report" / "class_report.html").string() << "\n";
        } catch (const user_error& e) {
            write_file_atomically(out / "report" / "class_report.json", data.dump(2) + "\n");
            std::cout << "class report not drawn: " << e.what() << "\n";
        }
    }
    std::cout << "per student: " << cache.root().string() << "/<student>/report.txt\n";
    if (left > 0 || not_graded_count > 0) return not_graded;
    return all_passed;
}

}  // namespace grader
