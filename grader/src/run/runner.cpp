#include "run/runner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>

#include "course/testing/evidence.hpp"
#include "course/testing/gpu_record.hpp"
#include "course/testing/harness.hpp"
#include "course/testing/kernel_profile.hpp"
#include "evidence/device_code.hpp"
#include "evidence/kernel_profile.hpp"
#include "run/concurrent_judge.hpp"
#include "run/test_processes.hpp"
#include "system/process.hpp"

namespace grader {

namespace {
using nlohmann::json;

// Old logs, evidence and claims go first: evidence from another run proves nothing.
void clear_run_files(const run_options& options) {
    std::error_code ec;
    std::filesystem::remove_all(evidence_dir(options), ec);
    std::filesystem::remove_all(claims_dir(options), ec);
    std::filesystem::remove_all(profile_dir(options), ec);
    std::filesystem::remove_all(sanitizer_dir(options), ec);
    std::filesystem::remove_all(metrics_dir(options), ec);
    for (const auto& entry : std::filesystem::directory_iterator(options.log_dir, ec))
        if (entry.path().extension() == ".log") std::filesystem::remove(entry.path(), ec);
    std::filesystem::create_directories(evidence_dir(options));
    std::filesystem::create_directories(claims_dir(options));
    std::filesystem::create_directories(profile_dir(options));
}

// The symbol table of the student's library (`nm -A -P`), written where the
// test programs may read it (the claims folder, named to them by
// grade.cpp): lesson07's check that no library GEMM is called reads it, and
// a program under course-threads-only cannot start nm. Where nm fails there
// is no file, and a program runs nm itself where it may.
void write_implementation_symbols(const run_options& options) {
    if (options.implementation_library.empty()) return;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(options.implementation_library, ec)) return;
    const auto nm_program = find_program("nm");  // execv does not search PATH
    if (!nm_program) return;
    const auto table = implementation_symbols_file(options);
    const exit_status nm = run_command({nm_program->string(), "-A", "-P", options.implementation_library.string()}, table);
    if (nm.signaled || nm.code != 0) std::filesystem::remove(table, ec);
}

// The device code of the student's library, for the judge's replay of timed
// calls; where it cannot be read, a file that says why (the judge quotes it).
void write_device_code_for_judge(const run_options& options) {
    if (options.implementation_library.empty()) return;
    const auto folder = device_code_dir(options);
    const device_code_result written = write_device_code(options.implementation_library, folder);
    if (written.error.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    std::ofstream(folder / course::testing::unreadable_device_code_file) << written.error << '\n';
}

// Nsight Compute, and the kernels compiled into the student's library and
// into the test program: what it takes to say where a kernel came from.
struct kernel_profiler {
    std::filesystem::path ncu, cuobjdump;
    kernel_sources sources;

    // Read once the profiled tests are about to run (never on a machine
    // without a GPU, where they are not). A library with no kernels yet (a
    // skeleton) lists none: then none are its own.
    void list_kernels(const run_options& options) {
        sources = kernel_sources_of(cuobjdump, options.implementation_library, options.tests_program,
                                    profile_dir(options));
    }
};

std::optional<kernel_profiler> find_kernel_profiler(const run_options& options) {
    if (!options.profile_kernels || options.implementation_library.empty()) return std::nullopt;
    const auto ncu = find_ncu();
    const auto cuobjdump = find_cuobjdump();
    if (!ncu || !cuobjdump) return std::nullopt;
    return kernel_profiler{*ncu, *cuobjdump, {}};
}

// What the judge reads about a profiled test: ncu's launches with their
// origin, or why there is no profile (ncu failed: its own words).
json profile_for_judge(const kernel_profiler& profiler, const std::filesystem::path& csv) {
    const std::string text = file_text(csv);
    if (text.empty()) return no_profile("ncu wrote no report");
    const std::vector<kernel_launch> launches = parse_ncu_csv(text);
    // ncu's own errors mean no profile, unless it profiled kernels anyway; a
    // test program that ends with 1 (a failed test) is not one.
    if (const auto errors = ncu_errors(text); launches.empty() && !errors.empty()) return no_profile(errors.front());
    return attribute_launches(launches, profiler.sources.own, profiler.sources.test_program);
}

// Whether the profiled speed tests may start: false where a correctness
// test failed, or where the run was left (an exception) before it was said.
bool speed_tests_go(const std::shared_future<bool>& decided) {
    try {
        return decided.get();
    } catch (const std::future_error&) {
        return false;
    }
}

// The run's nonce goes to the student's program and the judge alike (the
// recorder writes it into each record, the judge checks it): a record kept
// from another run is refused. Only where there is a recorder to write it.
run_options with_gpu_recorder(run_options options) {
    if (options.gpu_recorder.empty()) return options;
    std::random_device entropy;
    const std::uint64_t nonce = (std::uint64_t{entropy()} << 32) | entropy();
    options.env.emplace_back(course::testing::gpu_record_nonce_variable, fmt::format("{:016x}", nonce));
    return options;
}

}  // namespace

graded_run judge_graded_tests(const run_options& given) {
    run_options options = with_gpu_recorder(given);
    std::filesystem::create_directories(options.log_dir);
    clear_run_files(options);
    write_implementation_symbols(options);
    write_device_code_for_judge(options);
    graded_run run;
    const std::vector<listed_test> listed = [&] {
        const step_timings::measure timed(options.timings, "listing the graded tests (the judge's program)");
        return list_graded_tests(options.judge_program, options.log_dir);
    }();
    // Shared now; alone while each timed test runs. Every process of the
    // run is registered with the turn, so that other runs' timed tests may
    // pause them rather than wait for this run to end.
    gpu_turn turn(options.gate, options.places, /*watch_processes=*/true);
    options.turn = &turn;
    for (const auto& t : listed) {
        if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), t.id) == options.only.end())
            continue;
        run.tests.push_back(not_yet_run(t));
    }
    std::map<std::string, graded_test*> by_id;
    std::vector<std::string> correctness, performance;
    std::set<std::string> alone, profiled, kernel_speed;
    for (auto& t : run.tests) {
        by_id[t.id] = &t;
        (t.performance ? performance : correctness).push_back(t.id);
    }
    for (const auto& t : listed) {
        if (t.alone) alone.insert(t.id);
        if (t.profiled && by_id.count(t.id)) profiled.insert(t.id);
        if (t.kernel_speed) kernel_speed.insert(t.id);
    }
    // Profiled tests run last, each in a process of its own under ncu (so
    // that every kernel ncu saw belongs to that test), where ncu is here.
    std::optional<kernel_profiler> profiler = profiled.empty() ? std::nullopt : find_kernel_profiler(options);
    std::vector<std::string> timed_in_run, timed_under_ncu;
    for (const auto& id : performance) (profiler && profiled.count(id) ? timed_under_ncu : timed_in_run).push_back(id);

    // One process of the student's program runs the correctness tests, then,
    // once the judge has passed them all, the performance tests (the grader
    // says "go" or "stop" in between); one judge process follows it, a test
    // behind. Speed is only worth grading once the answers are right, and
    // timing needs the GPU to itself: the judge is done with the correctness
    // tests before "go".
    const auto limit = options.per_test_limit;
    concurrent_judge judge(options, correctness, timed_in_run);
    test_processes::env_list student_env = grader_words_env(claims_dir(options), limit);
    if (!options.gpu_recorder.empty())
        student_env.emplace_back(course::testing::gpu_recorder_variable, options.gpu_recorder.string());
    test_processes student(options, options.tests_program, "record", "run", limit, student_env);
    student.watch_gpu_helpers_during(alone);
    std::set<std::string> correctness_left(correctness.begin(), correctness.end());
    // The timed tests still to come: between two of them, new sharers wait (gpu_gate.hpp).
    std::set<std::string> alone_left;
    for (const auto& id : correctness)
        if (alone.count(id)) alone_left.insert(id);
    for (const auto& id : performance)
        if (alone.count(id)) alone_left.insert(id);
    auto after_alone = [&](const std::string& id) {
        alone_left.erase(id);
        turn.shared_again(!alone_left.empty());
    };
    std::map<std::string, outcome> said;
    bool go = false;
    auto decide_performance = [&] {
        for (const auto& id : correctness) settle(*by_id[id], said[id], judge);
        go = std::all_of(correctness.begin(), correctness.end(),
                         [&](const std::string& id) { return by_id[id]->status == test_status::passed; });
        write_word(claims_dir(options) / course::testing::phase2_file, go ? "go" : "stop");
        if (go) return;
        for (const auto& id : performance) alone_left.erase(id);
        student.cancel(performance);
        const auto skipped = std::find_if(run.tests.begin(), run.tests.end(), [](const graded_test& t) {
            return t.status == test_status::skipped;
        });
        for (const auto& id : performance) {
            judge.claim(id, test_status::not_run);
            if (skipped != run.tests.end()) {
                by_id[id]->status = test_status::skipped;
                by_id[id]->messages = skipped->messages;
            } else {
                by_id[id]->status = test_status::not_run;
                by_id[id]->messages = {"needs correctness first"};
            }
        }
    };
    if (correctness.empty()) decide_performance();
    // A test that measures time starts once the judge is idle.
    auto gpu_alone = [&](concurrent_judge& busy) {
        return [&](const std::string& id) {
            if (!alone.count(id)) return;
            // The judge first: its last check is shared work, and the judge
            // then waits for this test's claim, so it stays idle.
            busy.wait_idle();
            turn.alone();
            write_word(gpu_alone_word(options, course::testing::evidence_file_name(id)), course::testing::gpu_alone_go);
        };
    };
    student.on_start(gpu_alone(judge));
    // Between two processes (the last one crashed, hit a sticky CUDA error or
    // ran out of time) this run has nothing on the GPU but the judge's check:
    // a run waiting to time a test goes first, as between the sanitizer's
    // reruns. Otherwise a submission whose every test faults, each in a
    // process of its own, would keep the timed tests of a batch waiting
    // through all of them (on an H200, 16 to 25 s for lesson01's mutants
    // that read out of bounds). The judge's checks use the GPU, so the run
    // steps aside only once its judge is idle, and waits for that briefly: a
    // judge may be waiting for a word the grader says later (a batch in which
    // the judge was waited for stalled 280 s).
    student.before_restart([&] {
        if (turn.others_wait_to_be_alone() && judge.wait_idle_for(std::chrono::milliseconds(500)))
            turn.let_waiting_runs_in();
    });

    // The profiled speed tests: each in a process of its own under ncu, and
    // their own judge, which waits for each claim (it comes once ncu's report
    // is read). Destroyed in the reverse order: were this function left by an
    // exception, the words that will never come are broken first, which lets
    // a waiting process go on, and then the processes are waited for.
    const std::size_t count = timed_under_ncu.size();
    std::optional<concurrent_judge> profiled_judge;  // made once the speed tests may start
    struct process_result {
        std::map<std::string, outcome> results;
        int ignored = 0;                    // event lines
        std::vector<std::string> refused;   // processes it tried to start (process_refusals.hpp)
    };
    std::vector<std::shared_future<void>> claimed_before(count);  // test i - 1's claim is in
    std::vector<std::promise<void>> test_ended(count);
    std::vector<std::once_flag> ended_said(count);
    std::vector<std::future<process_result>> processes(count);
    std::vector<std::promise<void>> claimed(count);
    std::promise<bool> speed_decided;  // true once the correctness tests passed and profiled_judge is made
    for (std::size_t i = 1; i < count; ++i) claimed_before[i] = claimed[i - 1].get_future().share();
    // The next process may start once this test has ended, or once this
    // process has ended without it (a crash at start-up).
    auto let_next_start = [&](std::size_t i) {
        std::call_once(ended_said[i], [&] { test_ended[i].set_value(); });
    };
    auto profiled_process = [&, may_start = speed_decided.get_future().share()](std::size_t i) {
        const std::string& id = timed_under_ncu[i];
        const auto csv = profile_dir(options) / (course::testing::evidence_file_name(id) + ".ncu.csv");
        test_processes under_ncu(options, options.tests_program, "record", fmt::format("profile{}", i + 1), limit,
                                 student_env);
        under_ncu.run_under(ncu_command(profiler->ncu, csv), profile_dir(options));
        under_ncu.on_start([&, i, may_start](const std::string& started) {
            if (!speed_tests_go(may_start)) {
                // A correctness test failed: the test ends without timing anything.
                write_word(gpu_alone_word(options, course::testing::evidence_file_name(started)),
                           course::testing::gpu_alone_stop);
                return;
            }
            if (claimed_before[i].valid()) claimed_before[i].wait();
            gpu_alone(*profiled_judge)(started);
        });
        process_result result{under_ncu.run({id}, [&, i](const std::string&, const outcome&) { let_next_start(i); }),
                              under_ncu.ignored_events(), under_ncu.refused_processes()};
        let_next_start(i);
        return result;
    };
    // In `grader run` (no other run shares the GPU) and where the student's
    // program times nothing itself, every process under ncu starts up while
    // the correctness tests run, once the first of them is claimed passed:
    // ncu and the program take about half a second to start, and nothing is
    // timed then. (A skeleton fails its first test, and its report does not
    // wait for processes it will never use.) Each test still waits for the
    // speed tests to start, for the claim of the test before it, and for the
    // GPU alone. In a batch each one starts up once the test before it has
    // ended (below), so that a run keeps at most one waiting process.
    const bool may_start_up_early =
        count > 0 && !correctness.empty() && options.gate == nullptr &&
        std::none_of(correctness.begin(), correctness.end(), [&](const std::string& id) { return alone.count(id); }) &&
        std::none_of(timed_in_run.begin(), timed_in_run.end(), [&](const std::string& id) { return alone.count(id); });
    bool start_up_early = false;

    student.run(
        correctness,
        [&](const std::string& id, const outcome& result) {
            const bool first_result = said.empty();  // said holds every result heard before this one
            if (first_result && may_start_up_early && result.status == test_status::passed) {
                start_up_early = true;
                for (std::size_t i = 0; i < count; ++i)
                    processes[i] = std::async(std::launch::async, profiled_process, i);
            }
            if (alone.count(id)) after_alone(id);  // its time is taken; the judge's check shares the GPU
            said[id] = result;
            judge.claim(id, result.status);
            if (correctness_left.erase(id) > 0 && correctness_left.empty()) decide_performance();
        },
        timed_in_run);
    for (const auto& id : timed_in_run)
        if (said.count(id)) settle(*by_id[id], said[id], judge);

    const bool speed_under_ncu = go && count > 0;
    if (speed_under_ncu) {
        // The GPU is taken alone when the test starts (gpu_alone), not while
        // ncu and the program start up, which takes seconds and no GPU time.
        judge.wait_idle();
        {
            const step_timings::measure timed(options.timings, "listing the kernels of the library (cuobjdump)");
            profiler->list_kernels(options);
        }
        profiled_judge.emplace(options, timed_under_ncu, std::vector<std::string>{}, "judge-profiled");
    }
    speed_decided.set_value(speed_under_ncu);
    if (speed_under_ncu) {
        bool unprofiled_noted = false;
        // Without an early start: the next process starts up (ncu and the
        // program: about half a second) once this one's test has ended,
        // while ncu writes its report, the process ends and the judge checks
        // the test. (Started while this test ran, it shared the CPU with the
        // timed test, and on the H200 the speed tests took as long as when
        // each process started after the last.)
        if (!start_up_early) processes[0] = std::async(std::launch::async, profiled_process, 0);
        for (std::size_t i = 0; i < count; ++i) {
            const std::string& id = timed_under_ncu[i];
            if (i + 1 < count && !start_up_early) {
                test_ended[i].get_future().wait();
                processes[i + 1] = std::async(std::launch::async, profiled_process, i + 1);
            }
            auto [results, ignored, refused] = processes[i].get();
            for (auto& note : refused)
                if (std::find(run.notes.begin(), run.notes.end(), note) == run.notes.end())
                    run.notes.push_back(std::move(note));
            after_alone(id);  // ncu has measured; the next process starts up beside other runs
            said[id] = results.at(id);
            // The process has ended: ncu's report is complete.
            const auto csv = profile_dir(options) / (course::testing::evidence_file_name(id) + ".ncu.csv");
            const json profile = profile_for_judge(*profiler, csv);
            if (!profile.value("profiled", false) && !unprofiled_noted) {
                unprofiled_noted = true;
                run.notes.push_back(fmt::format(
                    "ncu could not profile the speed tests ({}): their figures are the test program's own timing, "
                    "which the code under test could forge. Where ncu may not read the GPU's counters "
                    "(ERR_NVGPUCTRPERM), an administrator can allow it: see NVIDIA's ERR_NVGPUCTRPERM page.",
                    profile.value("reason", "")));
            }
            const auto file = claims_dir(options) / (course::testing::evidence_file_name(id) +
                                                     course::testing::kernel_profile_suffix);
            write_word(file, profile.dump());
            profiled_judge->claim(id, said[id].status);
            claimed[i].set_value();
            if (ignored > 0)
                run.notes.push_back(fmt::format("the test program wrote {} event line(s) under ncu that were ignored",
                                                ignored));
        }
        // The verdicts are taken at the end: the next test's process starts
        // (ncu and the program, most of a second) while the judge is still on
        // the last one, and its test waits for the judge all the same.
        for (const auto& id : timed_under_ncu) settle(*by_id[id], said[id], *profiled_judge);
        note_ignored_events(*profiled_judge, run.notes);
    } else if (start_up_early) {
        // Stopped before the speed tests: each process heard so at its test's
        // start, and ended it without timing anything. Their statuses were
        // set when the correctness tests failed.
        for (auto& process : processes) process.get();
    } else if (!profiled.empty() && !profiler && options.profile_kernels &&
               std::any_of(profiled.begin(), profiled.end(), [&](const std::string& id) {
                   return by_id[id]->status == test_status::passed || by_id[id]->status == test_status::failed;
               })) {
        run.notes.push_back(
            "Nsight Compute (ncu) or cuobjdump was not found, so the speed tests of hand-written kernels rest on "
            "the test program's own timing and the library check: install Nsight Compute (it comes with the "
            "CUDA toolkit) where grades count.");
    }

    for (const auto& note : student.refused_processes())
        if (std::find(run.notes.begin(), run.notes.end(), note) == run.notes.end()) run.notes.push_back(note);
    if (student.ignored_events() > 0)
        run.notes.push_back(fmt::format(
            "the test program wrote {} event line(s) that were ignored: for tests it was not running, "
            "repeated, malformed or too long",
            student.ignored_events()));
    note_ignored_events(judge, run.notes);
    run.kernel_speed = std::move(kernel_speed);
    return run;  // out of the gate: a run held alone lets the others in
}

graded_run run_graded_tests(const run_options& options) {
    graded_run run = judge_graded_tests(options);
    explain_failures(options, run);
    return run;
}

}  // namespace grader
