// The second step of a graded run: once every verdict is in, failed tests
// are rerun alone under compute-sanitizer and slow ones under Nsight Compute
// (evidence/), and what the tools find leads their messages. No verdict
// changes here.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>

#include "course/testing/evidence.hpp"
#include "evidence/kernel_instructions.hpp"
#include "evidence/kernel_profile.hpp"
#include "evidence/profile_evidence.hpp"
#include "evidence/sanitizer_evidence.hpp"
#include "run/concurrent_judge.hpp"
#include "run/runner.hpp"
#include "run/test_processes.hpp"

namespace grader {

namespace {

// Runs single tests of the student's program again under a tool
// (compute-sanitizer, ncu), each alone in a process of its own (sandboxed
// where the run is), with logs and evidence in a folder of their own, apart
// from the graded run's: the judge has finished with those, and these prove
// nothing. The tool writes its reports into reports().
class tool_reruns {
public:
    // `niceness`: how much lower than the grading their processes' CPU
    // priority is (test_processes::lower_cpu_priority).
    tool_reruns(const run_options& options, std::filesystem::path dir, std::string log_prefix, int niceness = 0)
        : options_(options), rerun_(options), log_prefix_(std::move(log_prefix)), niceness_(niceness) {
        rerun_.log_dir = std::move(dir);
        std::filesystem::create_directories(evidence_dir(rerun_));
        std::filesystem::create_directories(claims_dir(rerun_));  // empty: nothing to wait for
    }
    const std::filesystem::path& log_dir() const { return rerun_.log_dir; }
    std::filesystem::path reports() const { return rerun_.log_dir / "reports"; }

    // Where `alone_while_testing` is given (a profile's test needs the GPU
    // alone), that turn takes it as the test starts (the program waits for
    // the word, evidence.hpp) and shares it again once the test has ended,
    // so that neither the tool's start-up nor the report it writes at the
    // end keeps other runs off the GPU.
    // Where `stop` is given, the rerun ends as soon as it is set
    // (test_processes::stop_when).
    // Returns whether the tool ended by itself: its report is whole only then.
    bool run(const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds limit,
             test_processes::env_list env = {}, gpu_turn* alone_while_testing = nullptr,
             const std::atomic<bool>* stop = nullptr) {
        const auto go = gpu_alone_word(rerun_, course::testing::evidence_file_name(id));
        // A rerun explains one test and decides nothing, and the tools run
        // its kernels one at a time anyway: its process needs no more than
        // one hardware queue, the cheapest context to create and destroy.
        env.push_back(one_hardware_queue_env);
        if (alone_while_testing) {
            std::error_code ec;
            std::filesystem::remove(go, ec);  // an earlier rerun's word
            const auto words = grader_words_env(claims_dir(rerun_), limit);
            env.insert(env.end(), words.begin(), words.end());
        }
        test_processes under_tool(rerun_, options_.tests_program, "record", fmt::format("{}{}", log_prefix_, ++runs_),
                                  limit, std::move(env));
        under_tool.run_under(tool, reports());
        under_tool.stop_when(stop);
        under_tool.lower_cpu_priority(niceness_);
        under_tool.stop_leftovers_after(leftovers_grace);
        if (!alone_while_testing) {
            under_tool.run({id});
            return under_tool.ended_by_itself();
        }
        gpu_turn& turn = *alone_while_testing;
        under_tool.on_start([&](const std::string& started) {
            if (started != id) return;
            turn.alone(gpu_gate::alone_for::profiling);
            write_word(go, course::testing::gpu_alone_go);
        });
        // Another profile may follow: new sharers wait meanwhile, for up to the patience.
        under_tool.run({id}, [&](const std::string&, const outcome&) { turn.shared_again(true); });
        turn.shared_again(true);  // where the test never started or ended
        return under_tool.ended_by_itself();
    }

private:
    // How long the program may take to end once its test has: its CUDA
    // context's teardown took up to 1.1 s on an H200 with 16 processes
    // starting at once. What still runs the program then is a helper it left
    // behind (or the program stuck in its exit), which the tool would wait
    // for to the limit. What the tool found is its own: ncu measured the
    // test's kernel as it ran, compute-sanitizer reported each error as it
    // came, and each writes its report once the program is gone.
    static constexpr std::chrono::seconds leftovers_grace{5};

    const run_options& options_;
    run_options rerun_;
    std::string log_prefix_;
    int niceness_;
    int runs_ = 0;
};

// A compute-sanitizer rerun is mostly the tool's own work on the CPU (72 s
// of CPU for racecheck over lesson07's Tiled.Medium on an H200), and in a
// batch it runs beside graded runs, whose tests it must not slow: they
// decide grades, it only explains one. At niceness 10 it gets about a
// tenth of a CPU that a graded run's process also wants. (With the batch's
// builds at niceness 5, lesson07's class of 20 on an H200 had its scores
// 5 and 10 s sooner in two runs, and ended 4 and 14 s sooner.) A profile runs
// with the GPU alone, holding others' tests back, so it keeps the grader's
// priority.
constexpr int sanitizer_rerun_niceness = 10;

// Reruns failed tests (or, with --sanitize, every GPU test) under compute-sanitizer.
std::vector<std::string> add_sanitizer_findings(const run_options& options, std::vector<graded_test>& tests,
                                                gpu_turn& turn) {
    if (!options.sanitize_failures && !options.sanitize_every_test) return {};
    tool_reruns reruns(options, sanitizer_dir(options), "sanitizer", sanitizer_rerun_niceness);
    sanitizer_options plan;
    plan.every_test = options.sanitize_every_test;
    plan.budget = plan.every_test ? sanitize_all_budget : failure_rerun_budget;
    plan.per_rerun_limit = sanitizer_limit_factor * options.per_test_limit;
    std::chrono::steady_clock::duration not_running{};
    plan.not_running = &not_running;
    plan.read_kernels = [&](const std::atomic<bool>& give_up) {
        return kernel_instructions_of(find_cuobjdump(), options.tests_program, options.implementation_library,
                                      reruns.log_dir() / "program-sass.txt", &give_up);
    };
    // Every kernel compiled into the test program or the student's library:
    // a library the program calls (cuBLAS) is left out. None (every kernel
    // checked) where the student's code compiles or loads kernels at run
    // time: those are in neither.
    plan.own_kernels = [&] {
        std::vector<std::string> names;
        const auto cuobjdump = find_cuobjdump();
        if (!cuobjdump || options.implementation_library.empty() ||
            loads_kernels_at_run_time(options.implementation_library))
            return names;
        const kernel_sources sources =
            kernel_sources_of(cuobjdump, options.implementation_library, options.tests_program, reruns.log_dir());
        for (const auto* compiled : {&sources.own, &sources.test_program})
            for (const auto& [name, source] : *compiled)
                if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        return names;
    };
    return add_sanitizer_evidence(
        tests, plan, reruns.reports(),
        [&](const std::string& id, const std::vector<std::string>& tool, const std::filesystem::path& report_file,
            std::chrono::milliseconds limit) {
            // Feedback, never a grade, so it yields to timed tests (in a
            // batch): it starts once none waits for the GPU, is stopped when
            // one starts to wait, and is then done again from the start.
            const test_processes::env_list env{
                {course::testing::input_map_variable, input_map_file(reruns.reports(), id).string()}};
            // What a stopped attempt left (part of a report, an input map)
            // is not the next attempt's.
            auto forget_attempt = [&] {
                std::error_code ec;
                std::filesystem::remove(report_file, ec);
                std::filesystem::remove(input_map_file(reruns.reports(), id), ec);
            };
            const auto asked = std::chrono::steady_clock::now();
            auto started = asked;
            bool ended_by_itself = false;
            for (;;) {
                std::atomic<bool> stop{false};
                const bool whole = turn.rerun_yielding(
                    [&] {
                        started = std::chrono::steady_clock::now();
                        ended_by_itself = reruns.run(id, tool, limit, env, nullptr, &stop);
                    },
                    [&stop] { stop = true; });
                if (whole) break;
                forget_attempt();
            }
            not_running += started - asked;  // the wait and the stopped attempts
            return ended_by_itself;
        });
}

// Profiles slow tests (or, with --profile, every performance test) under
// Nsight Compute, with the GPU to this run alone.
std::vector<std::string> add_profile_findings(const run_options& options, const std::set<std::string>& kernel_speed,
                                              std::vector<graded_test>& tests, gpu_turn& turn) {
    if (!options.profile_failures && !options.profile_every_test) return {};
    tool_reruns reruns(options, metrics_dir(options), "profile");
    profile_options plan;
    plan.every_test = options.profile_every_test;
    plan.budget = plan.every_test ? profile_all_budget : failure_profile_budget;
    plan.per_run_limit = sanitizer_limit_factor * options.per_test_limit;
    auto list_sources = [&] {
        return kernel_sources_of(find_cuobjdump(), options.implementation_library, options.tests_program,
                                 reruns.log_dir());
    };
    return add_profile_evidence(
        tests, kernel_speed, plan, reruns.reports(), list_sources,
        [&](const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds limit) {
            return reruns.run(id, tool, limit, {}, &turn);
        });
}

}  // namespace

bool explaining_needs_the_gpu_alone(const run_options& options, const graded_run& run) {
    if (!options.profile_failures && !options.profile_every_test) return false;
    return !tests_to_profile(run.tests, run.kernel_speed, options.profile_every_test).empty();
}

bool has_failures_to_explain(const run_options& options, const graded_run& run) {
    // The same choices explain_failures makes: a failed host test, or a GPU
    // test of unfinished work, is rerun under no tool.
    const bool sanitizes = (options.sanitize_failures || options.sanitize_every_test) &&
                           !tests_to_sanitize(run.tests, options.sanitize_every_test).empty();
    return sanitizes || explaining_needs_the_gpu_alone(options, run);
}

double explaining_cost(const run_options& options, const graded_run& run) {
    if (!options.sanitize_failures && !options.sanitize_every_test) return 0;
    const auto rerun = tests_to_sanitize(run.tests, options.sanitize_every_test);
    double ms = 0;
    for (const auto& t : run.tests)
        if (std::find(rerun.begin(), rerun.end(), t.id) != rerun.end()) ms += t.ms;
    return ms / 1000;
}

void explain_failures(const run_options& options, graded_run& run) {
    // Every verdict is in: what the tools find explains them, and changes
    // none. The profiles come first: they take the GPU alone (a profile's
    // figures, DRAM throughput and time, are only right so), and in a batch
    // they wait for the reruns on the GPU to end (gpu_gate::alone_for), this
    // run's own among them.
    using clock = std::chrono::steady_clock;
    const auto evidence_start = clock::now();
    const step_timings::measure timed(options.timings, "evidence (compute-sanitizer and Nsight Compute reruns)");
    std::vector<std::string> profile_notes, sanitizer_notes;
    {
        gpu_turn turn(options.gate, options.places);
        profile_notes = add_profile_findings(options, run.kernel_speed, run.tests, turn);
    }
    {
        gpu_turn turn(options.gate, options.places);  // the sanitizer times nothing, so it shares the GPU
        sanitizer_notes = add_sanitizer_findings(options, run.tests, turn);
    }
    run.notes.insert(run.notes.end(), sanitizer_notes.begin(), sanitizer_notes.end());
    run.notes.insert(run.notes.end(), profile_notes.begin(), profile_notes.end());
    run.evidence_seconds = std::chrono::duration<double>(clock::now() - evidence_start).count();
}

}  // namespace grader
