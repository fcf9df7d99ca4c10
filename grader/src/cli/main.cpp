// grader: builds and grades the course's CUDA exercises.
//   grader list | run LESSON | hint LESSON | verify [LESSON...] | bench LESSON | plot FILE | doctor
//          | batch LESSON SUBMISSIONS
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "checkout/context.hpp"
#include "cli/commands.hpp"
#include "system/exit_codes.hpp"

namespace {
// A flag that turns `value` off, such as --no-build (CLI11's own way,
// "!--no-build", shows in --help as "--no-build{false}").
CLI::Option* add_off_flag(CLI::App& app, const std::string& name, bool& value, const std::string& description) {
    return app.add_flag_callback(name, [&value] { value = false; }, description);
}

// What the exit codes of `grader verify` and `grader batch` mean. grader
// run's are exit_code_help; the other commands exit 0 when done, 3 on a
// usage error and 4 on a build or setup error, and their help says nothing.
constexpr const char* verify_exit_codes =
    "Exit codes: 0 every version graded as expected, 1 some did not, 2 no GPU (nothing verified),\n"
    "            3 usage error, 4 build or setup error.";
constexpr const char* batch_exit_codes =
    "Exit codes: 0 every submission graded, whatever its score (or, with --no-wait, the job submitted),\n"
    "            2 some could not be graded (a rerun grades them), 3 usage error, 4 build or setup error.";

// `grader batch --engine slurm`'s options (slurm/engine.hpp), in a group of their own in --help.
void add_slurm_options(CLI::App& batch_cmd, grader::batch_args& batch) {
    auto& o = batch.slurm;
    batch_cmd.add_option("--engine", batch.engine, "local: this machine's GPUs; slurm: a Slurm job array")
        ->check(CLI::IsMember({"local", "slurm"}))
        ->capture_default_str();
    auto* slurm = batch_cmd.add_option_group("Slurm", "with --engine slurm");
    slurm->add_option("--partition", o.partition, "the partition (default: the cluster's)");
    slurm->add_option("--account", o.account, "the account charged (default: yours)");
    slurm->add_option("--qos", o.qos, "the quality of service");
    slurm->add_option("--sbatch-option", o.sbatch_options,
                      "an sbatch option passed through, e.g. --sbatch-option=--constraint=h100 (repeatable)")
        ->allow_extra_args(false);
    slurm->add_option("--throttle", o.throttle, "array tasks running at once (default: no limit)")
        ->check(CLI::Range(0, 100000));
    slurm->add_option("--chunk-size", o.chunk_size, "submissions per array task")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    slurm->add_option("--gpus-per-task", o.gpus_per_task, "GPUs per task (--gres=gpu:N; 0: none)")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    slurm->add_option("--cpus-per-task", o.cpus_per_task, "CPUs per task (its builders)")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    slurm->add_option("--time-limit", o.time_limit_minutes,
                      "minutes per task (default: every test and build of its chunk at its limit)")
        ->check(CLI::Range(1, 100000));
    add_off_flag(*slurm, "--no-wait", o.wait, "submit and return; `grader batch collect OUT` gathers the results");
    slurm->add_flag("--dry-run", o.dry_run, "write the job script and print it; submit nothing");
}
}  // namespace

int main(int argc, char** argv) {
    using namespace grader;
    CLI::App app{"grader: builds and grades the CUDA course's exercises.\n"
                 "A lesson can be named lesson01, 1 or vecadd.",
                 "grader"};
    app.require_subcommand(1);

    common_args common;
    app.add_option("--build-dir", common.build_dir,
                   "the build folder (default: found from this program or the current folder)");

    std::string list_lesson;
    auto* list = app.add_subcommand("list", "the lessons, with your best score in each; with a lesson, its test ids");
    list->add_option("lesson", list_lesson, "lesson01, 1 or vecadd: its tests, with the ids that `run --test` takes");

    run_args run;
    auto* run_cmd = app.add_subcommand("run", "build a lesson's exercise and grade it");
    run_cmd->footer(exit_code_help);
    run_cmd->add_option("lesson", run.lesson, "lesson01, 1 or vecadd")->required();
    run_cmd->add_flag("--solution", run.solution, "grade the reference solution instead");
    run_cmd->add_option("--mutant", run.mutant, "grade a known-wrong version (grader/mutants)");
    auto* cheat_option =
        run_cmd->add_option("--cheat", run.cheat, "grade a known cheat (grader/cheats)")->excludes("--mutant");
    run_cmd->add_option("--textbook", run.textbook, "grade a lesson's technique in its textbook form (grader/textbooks)")
        ->excludes("--mutant")
        ->excludes(cheat_option);
    auto* sandbox_flag = run_cmd->add_flag(
        "--sandbox", run.sandbox,
        "run the tests in a bubblewrap sandbox that hides the solutions, the known-wrong versions, the textbook "
        "forms and the build folder (graded runs: Gradescope); refuses to grade where bubblewrap cannot run");
    run_cmd->add_flag("--no-sandbox", run.no_sandbox,
                      "a graded run without the sandbox, where bubblewrap cannot run: the student's code runs with "
                      "your rights and could read the solutions; the report says NOT SANDBOXED")
        ->excludes(sandbox_flag);
    run_cmd->add_flag("--sanitize", run.sanitize,
                      "run every GPU test again under compute-sanitizer (memcheck, racecheck, synccheck, initcheck) "
                      "and report what it finds, also in tests that pass (slow: the tool slows kernels 10-100x)");
    run_cmd->add_flag("--profile", run.profile,
                      "profile every speed test's kernels with Nsight Compute (ncu) and show a table per test: time, "
                      "DRAM and SM throughput, sector use, bank conflicts, occupancy, local memory; also when they pass");
    run_cmd->add_flag("--timeline", run.timeline,
                      "after the report, draw what each timed test's call did on the GPU, stream by stream, from the "
                      "GPU's own record: a sketch here and a picture in build/timelines/ (lesson05: the overlap)");
    run_cmd->add_flag("--timings", run.timings,
                      "after the report, where the run's seconds went: the build, the grader's GPU query, each "
                      "process's start-up, each test in your program and in the judge, a timed test's wait for its turn "
                      "on the GPU, the evidence");
    run_cmd->add_option("--format", run.format, "report format")
        ->check(CLI::IsMember({"text", "json", "gradescope", "junit"}));
    run_cmd->add_option("-o,--output", run.output, "write the report in --format to this file (the terminal still gets text)");
    run_cmd->add_flag("-v,--verbose", run.verbose,
                      "every test on its own line with its id and its own messages (by default tests that fail for "
                      "one reason, such as a part not started, are said once)");
    run_cmd->add_option("--seed", run.seed, "seed for the random inputs (printed by every run)");
    run_cmd->add_option("--timeout", run.timeout_s, "seconds a single test may run before it is stopped")
        ->check(CLI::Range(1, 3600));
    add_off_flag(*run_cmd, "--no-build", run.build, "grade what is already built");
    run_cmd->add_option("--test", run.tests,
                        "grade only this test id (repeatable), e.g. VecAdd.Large; `grader list LESSON` shows them");

    std::string hint_lesson;
    bool all_hints = false;
    auto* hint = app.add_subcommand("hint", "the next hint for a lesson, one at a time");
    hint->add_option("lesson", hint_lesson, "lesson01, 1 or vecadd")->required();
    hint->add_flag("--all", all_hints, "show every hint seen so far again");

    watch_args watch;
    auto* watch_cmd = app.add_subcommand("watch", "regrade a lesson on every save; keys: h hint, n next lesson, r regrade, q quit");
    watch_cmd->add_option("lesson", watch.lesson, "lesson01, 1 or vecadd (default: the first one without full marks)");
    watch_cmd->add_flag("--manual", watch.manual, "do not watch files: press Enter to regrade (for WSL and network drives)");
    watch_cmd->add_option("--seed", watch.seed, "seed for the random inputs of every regrade");
    watch_cmd->add_option("--timeout", watch.timeout_s, "seconds a single test may run before it is stopped")
        ->check(CLI::Range(1, 3600));

    reset_args reset;
    auto* reset_cmd = app.add_subcommand("reset", "put a lesson's skeleton back; your version is saved beside it as a .bak file");
    reset_cmd->add_option("lesson", reset.lesson, "lesson01, 1 or vecadd")->required();
    reset_cmd->add_flag("--dry-run", reset.dry_run, "show what would be saved and restored, change nothing");
    reset_cmd->add_flag("-y,--yes", reset.yes, "do not ask for confirmation");

    verify_args verify;
    auto* verify_cmd = app.add_subcommand(
        "verify", "instructors: solutions get full marks, skeletons lose, known-wrong versions are caught");
    verify_cmd->add_option("lessons", verify.lessons, "lessons to verify (default: all)");
    verify_cmd->add_option("--seed", verify.seed, "seed for the random inputs");
    verify_cmd->add_option("--timeout", verify.timeout_s, "seconds a single test may run")->check(CLI::Range(1, 3600));
    add_off_flag(*verify_cmd, "--no-build", verify.build, "verify what is already built");
    verify_cmd->footer(verify_exit_codes);

    auto* doctor = app.add_subcommand("doctor", "check the GPU, driver, toolkit and build folder (--grading: and what grading needs)");
    bool doctor_grading = false;
    doctor->add_flag("--grading", doctor_grading,
                     "also check what graded runs and `grader batch` need, one line each with its fix: bubblewrap "
                     "(runs a sandbox), compute-sanitizer, ncu and the GPU's counters, libelf, the GPU recorder "
                     "(CUPTI), course-threads-only (libseccomp)");

    bench_args bench;
    auto* bench_cmd = app.add_subcommand(
        "bench", "time a lesson's kernels (GPU event time) and write a JSON file with the device's facts");
    bench_cmd->add_option("lesson", bench.lesson, "lesson01, 1 or vecadd")->required();
    bench_cmd->add_option("--impl", bench.impls, "what to time: exercise, solution, baseline (a copy, cuBLAS, CUB)")
        ->delimiter(',')
        ->capture_default_str();
    bench_cmd->add_option("--sizes", bench.sizes, "only these problem sizes, e.g. 1e6,1e8 or 2^20")->delimiter(',');
    bench_cmd->add_option("--block-sizes", bench.block_sizes, "only these threads per block, e.g. 128,256")
        ->delimiter(',');
    bench_cmd->add_option("--filter", bench.filter, "only benchmarks whose name matches this regular expression");
    bench_cmd->add_flag("--vs-cpu", bench.vs_cpu,
                        "When does the GPU win? (lesson01): your vecadd against your vecadd_cpu, with and without "
                        "the copies, 2^10 to 2^28 elements, as the time a program waits; draw it with grader plot");
    bench_cmd->add_option("--repetitions", bench.repetitions, "repetitions of each benchmark (the plots' spread)")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    bench_cmd->add_option("--min-time", bench.min_time_s, "seconds each repetition runs at least")
        ->check(CLI::Range(0.001, 60.0))
        ->capture_default_str();
    bench_cmd->add_option("--timeout", bench.timeout_s, "seconds a benchmark program may run before it is stopped")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str();
    bench_cmd->add_option("-o,--output", bench.output, "the JSON file (default: build/bench/LESSON-DATE.json)");
    add_off_flag(*bench_cmd, "--no-build", bench.build, "time what is already built");

    plot_args plot;
    auto* plot_cmd = app.add_subcommand("plot", "draw a `grader bench` file (PNG, SVG or PDF) with matplotlib");
    plot_cmd->add_option("file", plot.input, "a JSON file written by grader bench")->required();
    plot_cmd->add_option("-o,--output", plot.output, "the picture: .png, .svg or .pdf (default: beside FILE)");
    plot_cmd->add_option("--kind", plot.kind, "what to draw (auto picks from the file)")
        ->check(CLI::IsMember({"auto", "time", "bandwidth", "gflops", "speedup", "timeline", "crossover"}))
        ->capture_default_str();
    plot_cmd->add_option("--family", plot.families, "only these benchmark families, e.g. vecadd (repeatable)");
    plot_cmd->add_option("--baseline", plot.baseline, "speedup: relative to this family (default: the slowest)");

    release_args release;
    auto* release_cmd = app.add_subcommand(
        "release", "instructors: write the student edition (no solutions in any form) as a new git repository");
    release_cmd->add_option("dir", release.output, "a new folder for the edition")->required();
    release_cmd->add_option("--commit", release.commit, "the revision to release (default: HEAD; uncommitted "
                                                        "changes are never released)")
        ->capture_default_str();
    release_cmd->add_option("--repo-url", release.repo_url,
                            "where students will clone the edition from: written into the Colab notebook's REPO_URL "
                            "and the README's clone line");

    batch_args batch;
    auto* batch_cmd = app.add_subcommand(
        "batch", "instructors: grade a class's submissions, each sandboxed, into a gradebook and a class report");
    batch_cmd->add_option("lesson", batch.lesson, "lesson01, 1 or vecadd; or collect (see below)")->required();
    batch_cmd->add_option("submissions", batch.submissions,
                          "a folder with one subfolder per student, a folder of GitHub Classroom clones, or a "
                          "Gradescope export (zip or folder); after collect: the batch folder")
        ->required();
    batch_cmd->footer(fmt::format("`grader batch collect OUT` follows a Slurm job started with --no-wait (or left with Ctrl-C),\n"
                                  "reruns its killed tasks once and writes the gradebook and class report into OUT.\n\n{}",
                                  batch_exit_codes));
    batch_cmd->add_option("-o,--output", batch.output, "the batch's folder: results, gradebook, report (default: ./batch-LESSON)");
    batch_cmd->add_option("--kind", batch.kind, "what SUBMISSIONS is (auto tells from its shape)")
        ->check(CLI::IsMember({"auto", "folders", "classroom", "gradescope"}))
        ->capture_default_str();
    batch_cmd->add_flag("--force", batch.force, "regrade submissions already graded with the same files and course");
    batch_cmd->add_option("-j,--jobs", batch.jobs, "submissions built at once (default: half the CPUs)")
        ->check(CLI::Range(0, 1024));
    batch_cmd->add_option("--per-gpu", batch.per_gpu,
                          "submissions graded at once on each GPU (timed tests still run alone; default: a third of "
                          "this process's CPUs per GPU, from 2 to 5)")
        ->check(CLI::Range(1, 64));
    batch_cmd->add_flag("--pause", batch.pause_sharers,
                        "a timed test pauses the GPU work of the submissions sharing its GPU while it runs (the "
                        "driver's checkpoint lock, driver 570 or newer), instead of waiting for them to finish");
    batch_cmd->add_option("--seed", batch.seed, "seed for the random inputs (the same for every submission)");
    batch_cmd->add_option("--timeout", batch.timeout_s,
                          "seconds a single test may run at most; where `grader verify` timed the reference "
                          "solution on this GPU model, each test gets 5 s plus 20 times its time (10 s more for a "
                          "process's first GPU test, which starts CUDA), if less")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    batch_cmd->add_option("--build-timeout", batch.build_timeout_s, "seconds one submission's build may take")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    batch_cmd->add_flag("--no-sandbox", batch.no_sandbox,
                        "grade without bubblewrap where it cannot run (otherwise the batch refuses): students' "
                        "code then runs with your rights and could read the solutions and each other's files; "
                        "every report, the gradebook and the class report say NOT SANDBOXED");
    batch_cmd->add_option("--gpu-arch", batch.gpu_archs,
                          "the GPUs that will grade (sm_80, 8.0 or 80; repeatable or comma-separated): the build "
                          "must hold code for each. --engine slurm: the partition's GPUs (default: read from "
                          "sinfo where its GPU types name a model); local: checked against the GPUs here anyway")
        ->delimiter(',');
    batch_cmd->add_option("--memory", batch.memory, "memory limit of each build and test program (RLIMIT_DATA)")
        ->capture_default_str();
    add_off_flag(*batch_cmd, "--no-build", batch.build, "do not build the course's own tests and judge first");
    batch_cmd->add_option("--scratch", batch.scratch, "where submissions are built and graded (default: $TMPDIR)");
    batch_cmd->add_flag("--keep-scratch", batch.keep_scratch, "keep each submission's scratch folder (to debug a build)");
    batch_cmd->add_option("--chunk", batch.chunk, "grade only part I of N (I/N, from 0): one task of a cluster job");
    add_off_flag(*batch_cmd, "--no-report", batch.report, "write only the per-student results, no gradebook or class report");
    batch_cmd->add_option("--only-students", batch.only_students,
                          "grade only the students in this JSON list (with --chunk: part of it); cluster tasks use it");
    batch_cmd->add_option("--similarity", batch.similarity,
                          "flag pairs (classmates, or the solution, its textbook forms and known-wrong versions) "
                          "whose matched code is at least this share of one side's own code: 0.5, 50% or off "
                          "(a flag for you to look at; it changes no score)")
        ->capture_default_str();
    auto* lms = batch_cmd->add_option_group("Grades back to students",
                                            "beside gradebook.csv: lms/canvas.csv (Canvas's gradebook import), "
                                            "lms/moodle.csv (Moodle's CSV import), feedback/ (a .txt and an .html "
                                            "per student)");
    lms->add_option("--roster", batch.roster,
                    "a CSV file naming each student in the LMS: a header row, then the columns folder (the "
                    "gradebook's student), id (Canvas's SIS Login ID, Moodle's username or e-mail), and optionally "
                    "name and section; fields may be quoted. Kept in the batch folder for later runs. Without one, "
                    "students are named by their Gradescope e-mail address or their folder; one the roster leaves "
                    "out is named in the output and in the files")
        ->check(CLI::ExistingFile)
        ->type_name("FILE");
    lms->add_option("--lms-column", batch.lms_column,
                    "the assignment's column in the LMS files (default: the lesson's id); for Canvas, \"lesson01 "
                    "(12345)\" with the assignment's id from its page's address updates that assignment")
        ->type_name("NAME");
    add_slurm_options(*batch_cmd, batch);
    // Set last: a subcommand added after it would show it too (CLI11 copies
    // it), and the exit codes it describes are grader run's.
    app.footer(exit_code_help);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? all_passed : usage_error;
    }

    try {
        if (*list) return list_lesson.empty() ? cmd_list(common) : cmd_list_tests(common, list_lesson);
        if (*run_cmd) return cmd_run(common, run);
        if (*hint) return cmd_hint(common, hint_lesson, all_hints);
        if (*watch_cmd) return cmd_watch(common, watch);
        if (*reset_cmd) return cmd_reset(common, reset);
        if (*doctor) return cmd_doctor(common, doctor_grading);
        if (*verify_cmd) {
            refuse_in_student_edition(open_build(common.build_dir), "verify");
            return cmd_verify(common, verify);
        }
        if (*bench_cmd) {
            // The CPU experiment times your own code; the baselines have no part in it.
            if (bench.vs_cpu && bench_cmd->get_option("--impl")->count() == 0) bench.impls = {"exercise"};
            return cmd_bench(common, bench);
        }
        if (*plot_cmd) return cmd_plot(common, plot);
        if (*batch_cmd) {
            refuse_in_student_edition(open_build(common.build_dir), "batch");
            return cmd_batch(common, batch);
        }
        if (*release_cmd) return cmd_release(common, release);
    } catch (const user_error& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return e.code;
    } catch (const std::exception& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return build_error;
    }
    return usage_error;
}
