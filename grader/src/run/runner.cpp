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
#include "evidence/device_code.hpp"
#include "run/concurrent_judge.hpp"
#include "run/test_processes.hpp"
#include "system/process.hpp"

namespace grader {

namespace {
using nlohmann::json;

// Processes at once for what is left after a process ended early
// (test_processes::restart_in_parallel): a few, since each starts CUDA and
// a batch runs several submissions beside it.
constexpr int parallel_restart_lines = 3;

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
    std::set<std::string> alone, kernel_speed, judge_times, record_alone;
    for (auto& t : run.tests) {
        by_id[t.id] = &t;
        (t.performance ? performance : correctness).push_back(t.id);
    }
    for (const auto& t : listed) {
        if (t.alone) alone.insert(t.id);
        if (t.kernel_speed) kernel_speed.insert(t.id);
        if (t.alone && t.timed_by_judge) judge_times.insert(t.id);
        if (t.alone && t.record_alone) record_alone.insert(t.id);
    }
    // One process of the student's program runs the correctness tests, then,
    // once the judge has passed them all, the performance tests (the grader
    // says "go" or "stop" in between); one judge process follows it, a test
    // behind. Speed is only worth grading once the answers are right, and
    // timing needs the GPU to itself: the judge is done with the correctness
    // tests before "go".
    const auto limit = options.per_test_limit;
    concurrent_judge judge(options, correctness, performance);
    test_processes::env_list student_env = grader_words_env(claims_dir(options), limit);
    if (!options.gpu_recorder.empty())
        student_env.emplace_back(course::testing::gpu_recorder_variable, options.gpu_recorder.string());
    test_processes student(options, options.tests_program, "record", "run", limit, student_env);
    test_time_limits limits = options.test_limits;
    for (const auto& t : listed)
        if (t.gpu) limits.gpu_tests.insert(t.id);
    student.limit_tests(std::move(limits));
    student.watch_gpu_helpers_during(alone);
    // A submission whose tests fault one after another (a sticky CUDA error
    // ends each process) runs what is left in a few processes at once.
    student.restart_in_parallel(parallel_restart_lines, alone);
    // Its processes that run neither a timed test nor one of stream order
    // (in practice, restarts after a crash) open one hardware queue: the
    // driver starts and ends them about three times faster.
    std::set<std::string> need_queues = alone;
    for (const auto& t : listed)
        if (t.across_streams) need_queues.insert(t.id);
    student.one_hardware_queue_unless(std::move(need_queues));
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
    auto decide_performance = [&] {
        for (const auto& id : correctness) settle(*by_id[id], said[id], judge);
        const bool go = std::all_of(correctness.begin(), correctness.end(),
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
    // A test that measures time starts once the judge is idle: no check of
    // the judge's, and no replay of an earlier timed test, runs beside it.
    // It has the GPU alone, unless the judge times it (a replay of what it
    // recorded): then the judge's test has it alone instead (below). A test
    // whose record is the figure where the judge cannot replay it has it
    // alone from here until the judge's verdict.
    student.on_start([&](const std::string& id) {
        if (!alone.count(id)) return;
        // The judge waits for this test's claim meanwhile, so it stays idle.
        judge.wait_idle(id);
        if (!judge_times.count(id) || record_alone.count(id)) turn.alone();
        write_word(gpu_alone_word(options, course::testing::evidence_file_name(id)), course::testing::gpu_alone_go);
    });
    // The judge's test of a speed test it times: once the student's program
    // has ended the test and claimed a pass (the judge judges nothing else),
    // the run has the GPU alone until the judge's verdict is in, so that
    // the replay is timed with no other run's work on the GPU.
    auto judge_alone_for = [&](const std::string& id, const outcome& said_of_it) {
        if (said_of_it.status == test_status::passed) {
            turn.alone();
            write_word(judge_alone_word(options, course::testing::evidence_file_name(id)),
                       course::testing::gpu_alone_go);
            judge.wait_judged(id);
        }
        after_alone(id);
    };
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

    student.run(
        correctness,
        [&](const std::string& id, const outcome& result) {
            // Its time is taken; the judge's check shares the GPU.
            if (alone.count(id) && !judge_times.count(id)) after_alone(id);
            said[id] = result;
            judge.claim(id, result.status);
            if (judge_times.count(id)) judge_alone_for(id, result);
            if (correctness_left.erase(id) > 0 && correctness_left.empty()) decide_performance();
        },
        performance);
    for (const auto& id : performance)
        if (said.count(id)) settle(*by_id[id], said[id], judge);

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
