// Isolation, end to end, with a graded-test program that misbehaves on request.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include "course/temp_dir.hpp"
#include "run/gpu_gate.hpp"
#include "run/host_spans.hpp"
#include "run/runner.hpp"
#include "run/test_processes.hpp"
#include "system/process.hpp"
#include "system/step_timings.hpp"

namespace {

using grader::test_status;

struct env_var {
    env_var(const char* name) : name(name) { setenv(name, "1", 1); }
    ~env_var() { unsetenv(name); }
    const char* name;
};

// A folder of this process's own: CTest runs these tests in parallel, and
// runs that share a log folder overwrite each other's logs.
const std::filesystem::path& scratch_dir() {
    static const course::temp_dir dir("grader-runner-test");
    return dir.path();
}

grader::run_options fake_options(int timeout_ms = 20000) {
    grader::run_options options;
    options.tests_program = FAKE_GRADED_TESTS;
    options.judge_program = FAKE_GRADED_JUDGE;
    options.log_dir = scratch_dir();
    options.seed = 7;
    options.per_test_limit = std::chrono::milliseconds(timeout_ms);
    return options;
}

std::vector<grader::graded_test> run(int timeout_ms = 20000) {
    return grader::run_graded_tests(fake_options(timeout_ms)).tests;
}

std::string all_messages(const grader::graded_test& t) {
    std::string text;
    for (const auto& m : t.messages) text += m + "\n";
    return text;
}

int score(const std::vector<grader::graded_test>& tests) {
    int total = 0;
    for (const auto& t : tests) total += t.score();
    return total;
}

const grader::graded_test& find(const std::vector<grader::graded_test>& tests, const std::string& id) {
    auto it = std::find_if(tests.begin(), tests.end(), [&](const auto& t) { return t.id == id; });
    if (it == tests.end()) throw std::runtime_error("no test " + id);
    return *it;
}

}  // namespace

TEST(Runner, ListsPointsAndTitlesFromTheProgram) {
    const auto listed = grader::list_graded_tests(FAKE_GRADED_JUDGE, scratch_dir());
    ASSERT_EQ(listed.size(), 11u);
    EXPECT_EQ(listed[1].id, "FakeHost.Fails");
    EXPECT_EQ(listed[1].points, 2);
    EXPECT_EQ(listed[1].title, "a test that fails");
    EXPECT_FALSE(listed[1].gpu);
    EXPECT_EQ(listed[8].kind, "performance");
    EXPECT_FALSE(listed[8].across_streams);
    EXPECT_TRUE(listed[9].across_streams) << "GRADED_STREAM_TEST's mark reaches the grader";
    EXPECT_EQ(listed[10].id, "FakeHost.HostClock");
    EXPECT_EQ(listed[10].kind, "performance");
}

TEST(Runner, ReportsPassAndFailWithCleanMessages) {
    const auto tests = run();
    EXPECT_EQ(find(tests, "FakeHost.Passes").status, test_status::passed);
    const auto& failed = find(tests, "FakeHost.Fails");
    EXPECT_EQ(failed.status, test_status::failed);
    ASSERT_EQ(failed.messages.size(), 1u);
    EXPECT_EQ(failed.messages[0], "element 128: expected 1, got NaN (never written)\n(with n = 129)");
    // One correctness test failed, so the performance test waits.
    EXPECT_EQ(find(tests, "FakeHost.Speed").status, test_status::not_run);
}

// A failure the test explained by a cause no compute-sanitizer tool looks
// at reaches the report so marked (the tools rerun no such test); one
// failure of two so explained does not mark the test.
TEST(Runner, AFailureExplainedBeyondTheToolsIsMarkedOnlyWhereEveryFailureOfTheTestIs) {
    EXPECT_FALSE(find(run(), "FakeHost.Fails").explained_beyond_the_tools);
    {
        env_var explained("FAKE_EXPLAINED");
        const auto tests = run();
        EXPECT_TRUE(find(tests, "FakeHost.Fails").explained_beyond_the_tools);
        EXPECT_FALSE(find(tests, "FakeHost.Passes").explained_beyond_the_tools);
    }
    env_var one_of_two("FAKE_EXPLAINED_ONE");
    const auto tests = run();
    EXPECT_EQ(find(tests, "FakeHost.Fails").messages.size(), 2u);
    EXPECT_FALSE(find(tests, "FakeHost.Fails").explained_beyond_the_tools);
}

TEST(Runner, ACrashCostsOnlyItsOwnTest) {
    env_var crash("FAKE_CRASH");
    const auto tests = run();
    const auto& crashed = find(tests, "FakeHost.Crashes");
    EXPECT_EQ(crashed.status, test_status::crashed);
    ASSERT_FALSE(crashed.messages.empty());
    EXPECT_NE(crashed.messages[0].find("SIGSEGV"), std::string::npos) << crashed.messages[0];
    // The tests after it ran in a fresh process.
    EXPECT_EQ(find(tests, "FakeHost.Hangs").status, test_status::passed);
    EXPECT_EQ(find(tests, "FakeHost.Last").status, test_status::passed);
}

TEST(Runner, GigabytesOfOutputAreNeitherKeptNorPunished) {
    // 2 GiB of prints, twice the limit of any file the program writes: the
    // test passes as it would without them, and the log keeps the first and
    // last 64 KiB with a note of what was left out.
    env_var chatty("FAKE_CHATTY");
    grader::run_options options = fake_options();
    options.only = {"FakeHost.Passes"};
    const auto tests = grader::run_graded_tests(options).tests;
    EXPECT_EQ(find(tests, "FakeHost.Passes").status, test_status::passed) << all_messages(find(tests, "FakeHost.Passes"));
    bool found_log = false;
    for (const auto& entry : std::filesystem::directory_iterator(scratch_dir())) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".log" || name.rfind("run-", 0) != 0) continue;
        const std::string text = grader::file_text(entry.path());
        if (text.find("bytes of output left out here") == std::string::npos) continue;
        found_log = true;
        EXPECT_LT(entry.file_size(), 200u * 1024) << name;
        EXPECT_NE(text.find("the first and last 64 KiB are kept"), std::string::npos);
    }
    EXPECT_TRUE(found_log) << "no log in " << scratch_dir() << " notes the output left out";
}

TEST(Runner, ACrashReportQuotesLongLinesShort) {
    env_var crash("FAKE_CRASH"), long_lines("FAKE_LONG_LINES");
    grader::run_options options = fake_options();
    options.only = {"FakeHost.Crashes"};
    const auto tests = grader::run_graded_tests(options).tests;
    const auto& crashed = find(tests, "FakeHost.Crashes");
    EXPECT_EQ(crashed.status, test_status::crashed);
    const std::string messages = all_messages(crashed);
    EXPECT_LT(messages.size(), 4096u) << messages.substr(0, 600);
    EXPECT_NE(messages.find("more characters)"), std::string::npos) << messages.substr(0, 600);
}

TEST(Runner, AHangIsStoppedAndCostsOnlyItsOwnTest) {
    env_var hang("FAKE_HANG");
    const auto start = std::chrono::steady_clock::now();
    const auto tests = run(1500);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
    EXPECT_EQ(find(tests, "FakeHost.Hangs").status, test_status::timed_out);
    EXPECT_EQ(find(tests, "FakeHost.Unfinished").status, test_status::passed);
    EXPECT_EQ(find(tests, "FakeHost.Last").status, test_status::passed);
}

// A test with a limit of its own (a batch's, from the solution's time) is
// stopped at it, and its report says which limit it was and where it came
// from; the other tests keep the run's.
TEST(Runner, ATestWithALimitOfItsOwnIsStoppedAtItAndSaysWhy) {
    env_var hang("FAKE_HANG");
    grader::run_options options = fake_options(20000);
    options.test_limits.by_test = {{"FakeHost.Hangs", std::chrono::milliseconds(1500)}};
    options.test_limits.why = "20 times the solution's time";
    const auto start = std::chrono::steady_clock::now();
    const auto tests = grader::run_graded_tests(options).tests;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15)) << "not the run's 20 s";
    const auto& hung = find(tests, "FakeHost.Hangs");
    EXPECT_EQ(hung.status, test_status::timed_out);
    EXPECT_NE(all_messages(hung).find("stopped after 1.5 s: the test did not finish."), std::string::npos)
        << all_messages(hung);
    EXPECT_NE(all_messages(hung).find("Its limit was 1.5 s: 20 times the solution's time; other tests have 20 s."),
              std::string::npos) << all_messages(hung);
    EXPECT_EQ(find(tests, "FakeHost.Unfinished").status, test_status::passed);
    EXPECT_EQ(find(tests, "FakeHost.Last").status, test_status::passed);
}

// A process's first GPU test starts CUDA, which in a batch waits for the
// driver to create one context after another: it has more time, and a
// later GPU test of the same process does not. (The fake tests are host
// tests; the runner adds the lesson's GPU tests to those named here.)
TEST(Runner, AProcesssFirstGpuTestHasMoreTimeForStartingCuda) {
    env_var hang("FAKE_HANG");
    const auto stopped_after = [](const std::set<std::string>& gpu_tests, grader::step_timings* timings) {
        grader::run_options options = fake_options(20000);
        options.only = {"FakeHost.Passes", "FakeHost.Hangs", "FakeHost.Last"};
        options.test_limits.by_test = {{"FakeHost.Hangs", std::chrono::milliseconds(1500)}};
        options.test_limits.first_gpu_test_extra = std::chrono::milliseconds(1000);
        options.test_limits.gpu_tests = gpu_tests;
        options.test_limits.why = "1 s plus 20 times the solution's time, 1 s more for the first GPU test";
        options.timings = timings;
        const auto tests = grader::judge_graded_tests(options).tests;
        EXPECT_EQ(find(tests, "FakeHost.Last").status, test_status::passed);
        return all_messages(find(tests, "FakeHost.Hangs"));
    };
    grader::step_timings timings;
    const std::string first = stopped_after({"FakeHost.Hangs"}, &timings);
    EXPECT_NE(first.find("stopped after 2.5 s: the test did not finish."), std::string::npos) << first;
    EXPECT_NE(first.find("Its limit was 2.5 s: 1 s plus 20 times"), std::string::npos) << first;
    EXPECT_NE(timings.format().find("student: FakeHost.Hangs (its process's first GPU test: CUDA starts)"),
              std::string::npos) << timings.format();
    const std::string later = stopped_after({"FakeHost.Passes", "FakeHost.Hangs"}, nullptr);
    EXPECT_NE(later.find("stopped after 1.5 s: the test did not finish."), std::string::npos) << later;
}

namespace {
// Once the run shares `gate`, another run wants it alone for `hold`; returns
// when that one got it.
std::chrono::steady_clock::time_point alone_once_the_run_shares(grader::gpu_gate& gate,
                                                                std::chrono::milliseconds hold) {
    auto run_inside = [&] {
        const auto spans = gate.spans();
        return std::any_of(spans.begin(), spans.end(), [](const grader::gate_span& s) {
            return s.kind == grader::gate_span::shared && s.end == s.start;
        });
    };
    for (int i = 0; i < 500 && !run_inside(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(run_inside());
    grader::gpu_turn timed(&gate);
    timed.alone();
    const auto alone_at = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(hold);
    return alone_at;
}
}  // namespace

// In a batch, a run whose process ended before its tests did (here a hang
// stopped at its limit) steps aside before the next process starts, so that
// another run waiting to time a test goes first instead of waiting through
// every process of it.
TEST(Runner, InABatchARunStepsAsideBetweenItsProcessesForAWaitingTimedTest) {
    env_var hang("FAKE_HANG");
    grader::gpu_gate gate;
    grader::run_options options = fake_options(1500);
    options.only = {"FakeHost.Hangs", "FakeHost.Last"};
    options.gate = &gate;
    std::vector<grader::graded_test> tests;
    std::chrono::steady_clock::time_point run_ended;
    std::thread graded([&] {
        tests = grader::judge_graded_tests(options).tests;
        run_ended = std::chrono::steady_clock::now();
    });
    const auto alone_at = alone_once_the_run_shares(gate, std::chrono::milliseconds(500));
    graded.join();
    EXPECT_EQ(find(tests, "FakeHost.Hangs").status, test_status::timed_out);
    EXPECT_EQ(find(tests, "FakeHost.Last").status, test_status::passed) << all_messages(find(tests, "FakeHost.Last"));
    // The timed run went in between the two processes: the run's second one
    // waited for it to be done.
    EXPECT_GT(run_ended - alone_at, std::chrono::milliseconds(450));
}

// In a batch a timed test may wait for its turn (the GPU alone) longer than
// the judge's limit on one test, here behind another run's test that holds
// the GPU for 4 s: on an H200, behind a hang running to its limit. The
// judge's test waits for that test's claim all the while, and the wait does
// not count against its limit: the test is graded as if it had not waited.
TEST(Runner, ATimedTestsWaitForItsTurnDoesNotCountAgainstTheJudgesLimit) {
    grader::gpu_gate gate;
    grader::run_options options = fake_options(1000);
    options.judge_extra_time = std::chrono::milliseconds(0);  // the judge's limit on a test: 2 s
    options.only = {"FakeHost.Passes", "FakeHost.Speed"};
    options.gate = &gate;
    const auto other_run = gate.enter_shared();  // in before the timed test waits
    std::thread other_run_ends([&] {
        std::this_thread::sleep_for(std::chrono::seconds(4));
        gate.leave_shared(other_run);
    });
    const auto tests = grader::judge_graded_tests(options).tests;
    other_run_ends.join();
    const auto& speed = find(tests, "FakeHost.Speed");
    EXPECT_EQ(speed.status, test_status::passed) << all_messages(speed);
}

// When a fake left its mark (fake_graded_tests.cpp: the steady clock's count).
std::chrono::steady_clock::time_point mark_time(const std::filesystem::path& mark) {
    std::chrono::steady_clock::rep ticks = 0;
    std::ifstream(mark) >> ticks;
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(ticks));
}

// In a batch a speed test has the GPU alone in the process that takes its
// time. One the judge times (a replay of the student's recorded calls: a
// GRADED_PERF_TEST) is recorded beside another run's work, and the judge's
// test waits until that run has left; one the student's program times (a
// GRADED_PERF_TEST_SYSTEM) waits in the student's program instead. One the
// judge times but grades from the record where it cannot replay a call
// (GRADED_PERF_TEST_STREAMS) waits in both.
TEST(Runner, InABatchTheProcessThatTimesASpeedTestHasTheGpuAlone) {
    enum timed { by_judge, by_program, by_both };
    for (const timed how : {by_judge, by_program, by_both}) {
        const bool by_program = how == timed::by_program;
        SCOPED_TRACE(how == by_both      ? "replayed by the judge, or the record's"
                     : by_program       ? "timed by the student's program"
                                        : "timed by the judge");
        const auto marks = scratch_dir() / (how == by_both ? "alone-marks-both"
                                            : by_program   ? "alone-marks-program"
                                                           : "alone-marks-judge");
        std::filesystem::remove_all(marks);
        std::filesystem::create_directories(marks);
        setenv("FAKE_MARKS", marks.c_str(), 1);
        if (by_program) setenv("FAKE_SPEED_TIMED_BY_PROGRAM", "1", 1);
        if (how == by_both) setenv("FAKE_SPEED_RECORD_ALONE", "1", 1);
        grader::gpu_gate gate;
        grader::run_options options = fake_options();
        options.only = {"FakeHost.Passes", "FakeHost.Speed"};
        options.gate = &gate;
        const auto other_run = gate.enter_shared();  // in before the speed test
        std::chrono::steady_clock::time_point other_run_left;
        std::thread other_run_ends([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(1500));
            other_run_left = std::chrono::steady_clock::now();
            gate.leave_shared(other_run);
        });
        const auto tests = grader::judge_graded_tests(options).tests;
        other_run_ends.join();
        unsetenv("FAKE_MARKS");
        unsetenv("FAKE_SPEED_TIMED_BY_PROGRAM");
        unsetenv("FAKE_SPEED_RECORD_ALONE");
        const auto& speed = find(tests, "FakeHost.Speed");
        EXPECT_EQ(speed.status, test_status::passed) << all_messages(speed);
        const auto recorded = mark_time(marks / "Speed.program");
        const auto judged = mark_time(marks / "Speed.judge");
        if (how == by_both) {
            EXPECT_GE(recorded, other_run_left) << "the student's program recorded beside another run";
            EXPECT_GE(judged, other_run_left) << "the judge timed beside another run";
        } else if (by_program) {
            EXPECT_GE(recorded, other_run_left) << "the student's program timed beside another run";
        } else {
            EXPECT_LT(recorded, other_run_left) << "the recording waited for the GPU alone";
            EXPECT_GE(judged, other_run_left) << "the judge timed beside another run";
        }
        EXPECT_GT(judged, recorded) << "the judge's test of a speed test runs after the student's";
    }
}

// Grades `options` with a judge that takes a second to exit and then writes
// a file (the fake's FAKE_JUDGE_EXIT): whether that file was there when the
// run returned (its exit was waited for), and whether it came within 3 s
// after (the judge ended by itself).
struct judge_exit_seen {
    std::vector<grader::graded_test> tests;
    bool exited_before_the_run_returned = false;
    bool exited_in_the_end = false;
};
judge_exit_seen grade_with_a_slow_judge_exit(const grader::run_options& options) {
    const auto exited = scratch_dir() / "judge-exited";
    std::filesystem::remove(exited);
    setenv("FAKE_JUDGE_EXIT", exited.c_str(), 1);
    judge_exit_seen seen;
    seen.tests = grader::judge_graded_tests(options).tests;
    unsetenv("FAKE_JUDGE_EXIT");
    seen.exited_before_the_run_returned = std::filesystem::exists(exited);
    for (int i = 0; i < 300 && !std::filesystem::exists(exited); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen.exited_in_the_end = std::filesystem::exists(exited);
    return seen;
}

// Outside a batch, the judge's exit (its CUDA context's teardown) is not
// waited for once it has judged every test: the report needs only its
// verdicts. In a batch it is, since a process still exiting may hold the GPU
// that another run's timed test must have to itself.
TEST(Runner, TheJudgesExitIsWaitedForOnlyInABatch) {
    for (const bool batch : {false, true}) {
        SCOPED_TRACE(batch ? "in a batch" : "alone");
        grader::gpu_gate gate;
        grader::run_options options = fake_options();
        options.only = {"FakeHost.Passes", "FakeHost.Speed"};
        if (batch) options.gate = &gate;
        const judge_exit_seen seen = grade_with_a_slow_judge_exit(options);
        EXPECT_EQ(find(seen.tests, "FakeHost.Passes").status, test_status::passed);
        EXPECT_EQ(find(seen.tests, "FakeHost.Speed").status, test_status::passed)
            << all_messages(find(seen.tests, "FakeHost.Speed"));
        EXPECT_EQ(seen.exited_before_the_run_returned, batch);
        // Alone, the judge ends by itself a moment later.
        EXPECT_TRUE(seen.exited_in_the_end);
    }
}

// A practice grade's judge is the student's program: its exit is waited for,
// so that nothing of the student's runs on once the grader has ended. Where
// one program plays both parts because it is the course's solution
// (`grader run --solution`), the judge is the course's and is let go.
TEST(Runner, APracticeGradesJudgeIsWaitedFor) {
    for (const bool practice : {true, false}) {
        SCOPED_TRACE(practice ? "practice grade" : "the solution graded");
        grader::run_options options = fake_options();
        options.tests_program = FAKE_GRADED_JUDGE;  // one program plays both parts
        options.judge_is_the_students_program = practice;
        options.only = {"FakeHost.Passes"};
        const judge_exit_seen seen = grade_with_a_slow_judge_exit(options);
        EXPECT_EQ(find(seen.tests, "FakeHost.Passes").status, test_status::passed);
        EXPECT_EQ(seen.exited_before_the_run_returned, practice);
    }
}

// A run told to stop (an explanation's rerun, stopped for a timed test):
// the process in flight is killed at once, its test ends saying why, and no
// other process starts.
TEST(Runner, AStoppedRunKillsItsProcessAtOnceAndStartsNoOther) {
    env_var hang("FAKE_HANG");
    grader::run_options options = fake_options(20000);
    std::atomic<bool> stop{false};
    grader::test_processes processes(options, options.tests_program, "record", "stopped",
                                     options.per_test_limit);
    processes.stop_when(&stop);
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop = true;
    });
    const auto started = std::chrono::steady_clock::now();
    const auto results = processes.run({"FakeHost.Hangs", "FakeHost.Last"});
    const auto took = std::chrono::steady_clock::now() - started;
    stopper.join();
    EXPECT_LT(took, std::chrono::seconds(3)) << "the hang ran on after the stop";
    ASSERT_TRUE(results.count("FakeHost.Hangs"));
    EXPECT_EQ(results.at("FakeHost.Hangs").status, test_status::crashed);
    ASSERT_FALSE(results.at("FakeHost.Hangs").messages.empty());
    EXPECT_NE(results.at("FakeHost.Hangs").messages[0].find("stopped: a timed test needed the GPU"), std::string::npos);
    EXPECT_NE(results.at("FakeHost.Last").status, test_status::passed) << "a process started after the stop";
}

// A tool that ends only once every process of the program has ended, as
// Nsight Compute and compute-sanitizer do, and then writes its report.
std::vector<std::string> fake_tool(const std::filesystem::path& report, const std::string& after = "") {
    return {"/bin/sh", "-c", "\"$@\" | cat; " + after + "echo whole > '" + report.string() + "'", "fake-tool"};
}

// Under a tool, a helper the program left running is stopped once every
// test has ended and the grace is out: the tool then ends by itself and
// writes its report, instead of waiting with it to the limit.
TEST(Runner, UnderAToolAHelperTheProgramLeftRunningIsStoppedAfterTheGrace) {
    env_var linger("FAKE_LINGER");
    grader::run_options options = fake_options(20000);
    const auto report = scratch_dir() / "tool-report";
    std::filesystem::remove(report);
    grader::test_processes processes(options, options.tests_program, "record", "tool", options.per_test_limit);
    processes.run_under(fake_tool(report), scratch_dir());
    processes.stop_leftovers_after(std::chrono::milliseconds(300));
    const auto started = std::chrono::steady_clock::now();
    const auto results = processes.run({"FakeHost.Passes"});
    const auto took = std::chrono::steady_clock::now() - started;
    ASSERT_TRUE(results.count("FakeHost.Passes"));
    EXPECT_EQ(results.at("FakeHost.Passes").status, test_status::passed);
    EXPECT_LT(took, std::chrono::seconds(5)) << "the tool waited for the helper to the limit";
    EXPECT_TRUE(processes.ended_by_itself());
    EXPECT_EQ(grader::file_text(report), "whole\n") << "the tool ended by itself and wrote its report";
}

// A tool that does not end by itself is killed at the limit, as before, and
// says so: its report is not whole.
TEST(Runner, AToolKilledAtItsLimitDidNotEndByItself) {
    grader::run_options options = fake_options(1000);
    const auto report = scratch_dir() / "tool-report-stuck";
    std::filesystem::remove(report);
    grader::test_processes processes(options, options.tests_program, "record", "tool", options.per_test_limit);
    processes.run_under(fake_tool(report, "sleep 30; "), scratch_dir());
    processes.stop_leftovers_after(std::chrono::milliseconds(100));
    const auto results = processes.run({"FakeHost.Passes"});
    EXPECT_EQ(results.at("FakeHost.Passes").status, test_status::passed);
    EXPECT_FALSE(processes.ended_by_itself());
    EXPECT_FALSE(std::filesystem::exists(report));
}

// After a process that ended early, what is left runs in parallel lines:
// here the hang's line runs to its limit while the other lines' tests are
// done, where one process after another would have reached them only after
// it. A test kept in line (a timed one) waits for a line of its own after
// the wave.
TEST(Runner, AfterACrashWhatIsLeftRunsInParallelLines) {
    env_var crash("FAKE_CRASH");
    env_var hang("FAKE_HANG");
    for (const int lines : {1, 3}) {
        SCOPED_TRACE(lines == 1 ? "one line" : "three lines");
        grader::run_options options = fake_options(1500);
        grader::test_processes processes(options, options.tests_program, "record", "lines", options.per_test_limit);
        processes.restart_in_parallel(lines, {"FakeHost.NoEvidence"});
        std::vector<std::string> order;
        std::mutex order_mutex;
        const auto results = processes.run(
            {"FakeHost.Passes", "FakeHost.Crashes", "FakeHost.Hangs", "FakeHost.Last", "FakeHost.NoEvidence"},
            [&](const std::string& id, const grader::outcome&) {
                std::lock_guard lock(order_mutex);
                order.push_back(id);
            });
        EXPECT_EQ(results.at("FakeHost.Crashes").status, test_status::crashed);
        EXPECT_EQ(results.at("FakeHost.Hangs").status, test_status::timed_out);
        EXPECT_EQ(results.at("FakeHost.Last").status, test_status::passed);
        EXPECT_EQ(results.at("FakeHost.NoEvidence").status, test_status::passed);
        const auto place = [&](const std::string& id) { return std::find(order.begin(), order.end(), id) - order.begin(); };
        if (lines == 1) EXPECT_LT(place("FakeHost.Hangs"), place("FakeHost.Last"));
        else EXPECT_LT(place("FakeHost.Last"), place("FakeHost.Hangs"));
        EXPECT_GT(place("FakeHost.NoEvidence"), place("FakeHost.Hangs")) << "the test kept in line ran in the wave";
    }
}

TEST(Runner, UnfinishedWorkIsNamed) {
    env_var todo("FAKE_TODO");
    const auto tests = run();
    const auto& t = find(tests, "FakeHost.Unfinished");
    EXPECT_EQ(t.status, test_status::failed);
    ASSERT_FALSE(t.messages.empty());
    EXPECT_EQ(t.messages[0].rfind("not implemented yet: fake::function", 0), 0u) << t.messages[0];
}

TEST(Runner, PerformanceRunsOnceCorrectnessPasses) {
    grader::run_options options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.Speed"};
    const auto tests = grader::run_graded_tests(options).tests;
    ASSERT_EQ(tests.size(), 2u);
    EXPECT_EQ(find(tests, "FakeHost.Speed").status, test_status::passed);
    // The margin shown beside a passed speed test is the judge's figure.
    EXPECT_EQ(find(tests, "FakeHost.Speed").figure, "speed 42; 42 is needed");
}

TEST(Runner, AVerdictLeftToTheJudgeIsTheJudgesAlone) {
    env_var slow("FAKE_SLOW");
    grader::run_options options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.Speed"};
    const auto tests = grader::run_graded_tests(options).tests;
    const auto& speed = find(tests, "FakeHost.Speed");
    EXPECT_EQ(speed.status, test_status::failed);
    // The judge's words only: the student's program claimed nothing it could have known.
    EXPECT_EQ(all_messages(speed), "Expected: (speed) >= (42), actual: 41 vs 42\ntoo slow\n");
    // And its figure is the judge's, not the one the program under test claimed.
    EXPECT_EQ(speed.figure, "speed 41; 42 is needed");
}

// Host work a speed test times (a cache, an allocator) is timed on the
// grader's clock, round by round (graders_clock.hpp, host_spans.hpp): a
// program whose own clock stands still while its calls work (cheat
// patched_clock) is as slow as its calls are.
TEST(Runner, HostWorkIsTimedOnTheGradersClock) {
    grader::run_options options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.HostClock"};
    {
        const auto tests = grader::run_graded_tests(options).tests;
        const auto& timed = find(tests, "FakeHost.HostClock");
        EXPECT_EQ(timed.status, test_status::passed) << all_messages(timed);
        // 200 us of sleep a call, and the grader's words cost little beside it.
        const long us = std::stol(timed.figure);
        EXPECT_GE(us, 200) << timed.figure;
        EXPECT_LT(us, 400) << timed.figure;
    }
    env_var slow("FAKE_SLOW_CALLS"), patched("FAKE_PATCHED_CLOCK");
    const auto tests = grader::run_graded_tests(options).tests;
    const auto& timed = find(tests, "FakeHost.HostClock");
    EXPECT_EQ(timed.status, test_status::failed);
    EXPECT_NE(all_messages(timed).find("too slow"), std::string::npos) << all_messages(timed);
    EXPECT_GE(std::stol(timed.figure), 2000) << timed.figure;
}

// The grader answers only the rounds of the test in progress, in order, and
// the judge finds no figure where the program never asked for a round.
TEST(HostSpans, RoundsOutOfTurnAreRefused) {
    const course::temp_dir claims("host-spans");
    grader::host_spans spans(claims.path(), "Suite.Test");
    auto event = [](const char* step, int round) {
        return nlohmann::json{{"event", "span"}, {"test", "Suite.Test"}, {"step", step}, {"round", round},
                              {"calls", 3}};
    };
    EXPECT_FALSE(spans.take(event("done", 0))) << "done before ready";
    EXPECT_FALSE(spans.take(event("ready", 1))) << "a round skipped";
    EXPECT_TRUE(spans.take(event("ready", 0)));
    EXPECT_FALSE(spans.take(event("ready", 0))) << "a round started twice";
    const auto word = claims.path() / "Suite.Test.evidence.span.0";
    std::string go;
    std::getline(std::ifstream(word), go);
    EXPECT_EQ(go, "go 3");
    EXPECT_TRUE(spans.take(event("done", 0)));
    EXPECT_FALSE(spans.take(event("done", 0))) << "a round ended twice";
    std::ifstream figures(claims.path() / "Suite.Test.evidence.spans");
    int round = -1;
    long calls = 0;
    double ns = -1;
    ASSERT_TRUE(figures >> round >> calls >> ns);
    EXPECT_EQ(round, 0);
    EXPECT_EQ(calls, 3);
    EXPECT_GE(ns, 0);
    // The next round asks for more calls: about 10 ms at the last one's pace.
    EXPECT_TRUE(spans.take(event("ready", 1)));
    std::getline(std::ifstream(claims.path() / "Suite.Test.evidence.span.1"), go);
    EXPECT_GT(std::stol(go.substr(3)), 3) << go;
    // A new start of the test (a fresh process) begins with no word waiting.
    grader::host_spans again(claims.path(), "Suite.Test");
    EXPECT_FALSE(std::filesystem::exists(word));
    // Where there is no folder for words (a program that says "ready"
    // unasked), the event is refused, and the grader goes on.
    grader::host_spans nowhere(claims.path() / "none", "Suite.Test");
    EXPECT_FALSE(nowhere.take(event("ready", 0)));
}

// The judge of a correctness test works (its inputs, the reference's answer)
// while the student's program runs the same test, and waits for the claim
// only where it needs the recorded result; the judge of a speed test starts
// only once the student's test has ended, so that no two processes time at once.
TEST(Runner, TheJudgeWorksBesideCorrectnessTestsButNeverBesideSpeedTests) {
    const auto marks = scratch_dir() / "judge-marks";
    std::filesystem::create_directories(marks);
    setenv("FAKE_MARKS", marks.c_str(), 1);
    grader::run_options options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.Speed"};
    const auto tests = grader::run_graded_tests(options).tests;
    unsetenv("FAKE_MARKS");
    EXPECT_EQ(find(tests, "FakeHost.Passes").status, test_status::passed)
        << all_messages(find(tests, "FakeHost.Passes"));
    EXPECT_EQ(find(tests, "FakeHost.Speed").status, test_status::passed)
        << all_messages(find(tests, "FakeHost.Speed"));
    EXPECT_TRUE(std::filesystem::exists(marks / "Speed.judge"));  // its judge did run, after
}

// Once the student's program has failed a test, the judge waits for each
// claim before it works: ahead of a skeleton, its work would be thrown away.
TEST(Runner, AfterAFailedClaimTheJudgeWaitsFirst) {
    const auto marks = scratch_dir() / "judge-marks-after-failure";
    std::filesystem::create_directories(marks);
    setenv("FAKE_MARKS", marks.c_str(), 1);
    grader::run_options options = fake_options();
    options.only = {"FakeHost.Fails", "FakeHost.Last"};
    const auto tests = grader::run_graded_tests(options).tests;
    unsetenv("FAKE_MARKS");
    EXPECT_EQ(find(tests, "FakeHost.Fails").status, test_status::failed);
    EXPECT_EQ(find(tests, "FakeHost.Last").status, test_status::passed) << all_messages(find(tests, "FakeHost.Last"));
    EXPECT_TRUE(std::filesystem::exists(marks / "Last.judge"));  // it did judge, after the claim
}

TEST(Runner, ATestTheProgramNeverReportsScoresZero) {
    // Listed with points, but GoogleTest never runs a DISABLED_ test.
    const auto tests = run();
    const auto& never = find(tests, "FakeHost.DISABLED_Never");
    EXPECT_EQ(never.status, test_status::missing);
    EXPECT_EQ(never.score(), 0);
}

TEST(Runner, AProgramThatCannotListItsTestsIsAnError) {
    grader::run_options options = fake_options();
    options.judge_program = "/bin/true";  // prints nothing for --graded-list
    EXPECT_THROW(grader::run_graded_tests(options), std::exception);
}

// Trust: the grader does not take the tests program's word for a pass.

TEST(Runner, APassTheJudgeCannotConfirmScoresZero) {
    const auto tests = run();
    const auto& t = find(tests, "FakeHost.NoEvidence");
    EXPECT_EQ(t.status, test_status::failed);
    EXPECT_NE(all_messages(t).find("checked no recorded result"), std::string::npos) << all_messages(t);
}

TEST(Runner, PassesForgedBeforeMainScoreZero) {
    env_var forge("FAKE_FORGE");
    const auto tests = run();
    EXPECT_EQ(score(tests), 0);
    const auto& t = find(tests, "FakeHost.Passes");
    EXPECT_EQ(t.status, test_status::failed);
    EXPECT_NE(all_messages(t).find("the pass was reported by the code under test, not shown by its results"),
              std::string::npos)
        << all_messages(t);
}

// Forged events out of the tests' order: the timed test starts while the
// judge waits for the claim of a test before it that the program never ran.
// In a batch the timed test goes on (the judge, waiting, does no GPU work)
// rather than wait for a judge that waits for it: that stall held a forged
// run's share of the GPU 60 s on an H200, until the judge gave up.
TEST(Runner, ForgedEventsOutOfOrderDoNotStallTheTimedTest) {
    env_var forge("FAKE_FORGE_SKIPPING");
    grader::gpu_gate gate;
    grader::run_options options = fake_options(2000);
    options.judge_extra_time = std::chrono::milliseconds(0);  // the judge's limit on a test: 4 s
    options.gate = &gate;
    const auto start = std::chrono::steady_clock::now();
    const auto tests = grader::judge_graded_tests(options).tests;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
    EXPECT_EQ(score(tests), 0);
    const auto& speed = find(tests, "FakeHost.Speed");
    EXPECT_NE(all_messages(speed).find("the pass was reported by the code under test, not shown by its results"),
              std::string::npos)
        << all_messages(speed);
}

TEST(Runner, ATamperedCheckIsJudgedOnTheRecordedResult) {
    env_var wrong("FAKE_WRONG");
    env_var tamper("FAKE_TAMPER");  // the student's program no longer checks the answer
    const auto tests = run();
    const auto& t = find(tests, "FakeHost.Last");
    EXPECT_EQ(t.status, test_status::failed);
    EXPECT_NE(all_messages(t).find("said this test passed"), std::string::npos) << all_messages(t);
    EXPECT_NE(all_messages(t).find("the answer is 42"), std::string::npos) << all_messages(t);
}

TEST(Runner, AFloodOfEventsEndsQuicklyAndScoresZero) {
    env_var flood("FAKE_FLOOD");
    const auto start = std::chrono::steady_clock::now();
    const grader::graded_run result = grader::run_graded_tests(fake_options());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(score(result.tests), 0);
    // The first process of the cheat "finished" the tests it named (the judge
    // then failed each); what was left ran in parallel lines, each of whose
    // first process finished nothing, so it was the line's last.
    int student_logs = 0;
    for (const auto& entry : std::filesystem::directory_iterator(scratch_dir()))
        student_logs += entry.path().filename().string().rfind("run-", 0) == 0;
    EXPECT_GE(student_logs, 2);
    EXPECT_LE(student_logs, 4);
    ASSERT_FALSE(result.notes.empty());
    EXPECT_NE(result.notes.front().find("ignored"), std::string::npos) << result.notes.front();
}

// A batch takes the verdicts first and explains the failures later: the
// two steps give what run_graded_tests gives in one.
TEST(Runner, VerdictsThenExplanationsGiveWhatOneRunGives) {
    const auto options = fake_options();
    grader::graded_run judged = grader::judge_graded_tests(options);
    EXPECT_EQ(find(judged.tests, "FakeHost.Fails").status, test_status::failed);
    EXPECT_FALSE(grader::has_failures_to_explain(options, judged)) << "no tool reruns a host test";
    grader::explain_failures(options, judged);
    const auto whole = grader::run_graded_tests(options).tests;
    ASSERT_EQ(judged.tests.size(), whole.size());
    for (std::size_t i = 0; i < whole.size(); ++i) {
        EXPECT_EQ(judged.tests[i].id, whole[i].id);
        EXPECT_EQ(judged.tests[i].status, whole[i].status) << whole[i].id;
        EXPECT_EQ(judged.tests[i].messages, whole[i].messages) << whole[i].id;
    }
}

// A batch keeps a judged submission waiting (its scratch folder on disk)
// only when explaining it would rerun something.
TEST(Runner, ExplainsOnlyWhatAToolWouldRerun) {
    const auto options = fake_options();
    grader::graded_run run;
    run.tests = {grader::graded_test{}};
    grader::graded_test& t = run.tests.front();
    t.id = "Gpu.Case";
    t.gpu = true;
    t.status = test_status::passed;
    EXPECT_FALSE(grader::has_failures_to_explain(options, run)) << "nothing failed";
    auto every_test = options;
    every_test.sanitize_every_test = true;  // `grader run --sanitize` checks passes too
    EXPECT_TRUE(grader::has_failures_to_explain(every_test, run));

    t.status = test_status::failed;
    EXPECT_TRUE(grader::has_failures_to_explain(options, run)) << "a failed GPU test is rerun under the sanitizer";
    auto without_tools = options;
    without_tools.sanitize_failures = without_tools.profile_failures = false;
    EXPECT_FALSE(grader::has_failures_to_explain(without_tools, run)) << "no tool is to explain anything";

    t.messages = {"not implemented yet: the kernel"};
    EXPECT_FALSE(grader::has_failures_to_explain(options, run)) << "unfinished work has no bug to look for";
    t.messages.clear();
    t.gpu = false;
    EXPECT_FALSE(grader::has_failures_to_explain(options, run)) << "no tool reruns a host test";
}

TEST(CleanMessage, UnwrapsExceptions) {
    EXPECT_EQ(grader::clean_message("C++ exception with description \"vecadd.cu:31: cudaErrorInvalidConfiguration: "
                                    "invalid configuration argument [cudaGetLastError()]\" thrown in the test body."),
              "threw vecadd.cu:31: cudaErrorInvalidConfiguration: invalid configuration argument [cudaGetLastError()]");
}

TEST(ChildProcess, GetsOnlyItsStandardStreamsAndTheEventsPipe) {
    // A descriptor this process holds, open across exec: the child must not get it.
    int held[2];
    ASSERT_EQ(pipe(held), 0);
    const auto out = scratch_dir() / "fds.txt";
    {
        grader::child_process child({{"/bin/ls", "-1", "/proc/self/fd"}, {}, out, true, std::nullopt});
        child.wait();
    }
    close(held[0]);
    close(held[1]);
    // 0-2, the events pipe (3) and the folder ls itself opened to list them (4).
    EXPECT_EQ(grader::file_text(out), "0\n1\n2\n3\n4\n");
}

int own_niceness() {
    errno = 0;
    const int niceness = getpriority(PRIO_PROCESS, 0);
    EXPECT_EQ(errno, 0);
    return niceness;
}

TEST(ChildProcess, RunsAsMuchNicerAsAsked) {
    const auto nice_program = grader::find_program("nice");
    if (!nice_program) GTEST_SKIP() << "no nice(1) on PATH to print a process's niceness";
    const auto out = scratch_dir() / "niceness.txt";
    grader::child_process::options options;
    options.argv = {nice_program->string()};  // with no command, it prints its own niceness
    options.output = out;
    options.niceness = 3;
    grader::child_process(options).wait();
    EXPECT_EQ(grader::file_text(out), std::to_string(std::min(19, own_niceness() + 3)) + "\n");
}

// An explanation's reruns give the CPU to the graded runs beside them.
TEST(TestProcesses, ARunAskedToBeNicerRunsItsProgramsSo) {
    const auto noted = scratch_dir() / "fake-niceness.txt";
    setenv("FAKE_NICENESS", noted.c_str(), 1);
    const grader::run_options options = fake_options();
    for (const int lower_by : {0, 10}) {
        std::filesystem::remove(noted);
        grader::test_processes processes(options, options.tests_program, "record", "nicer", options.per_test_limit);
        processes.lower_cpu_priority(lower_by);
        const auto results = processes.run({"FakeHost.Passes"});
        ASSERT_TRUE(results.count("FakeHost.Passes"));
        EXPECT_EQ(results.at("FakeHost.Passes").status, test_status::passed);
        EXPECT_EQ(grader::file_text(noted), std::to_string(std::min(19, own_niceness() + lower_by))) << lower_by;
    }
    unsetenv("FAKE_NICENESS");
}

// compute-sanitizer's reruns (here a stand-in that notes its niceness and
// writes no report) run at niceness 10 below the grader.
TEST(Runner, SanitizerRerunsRunNicerThanTheGrading) {
    const course::temp_dir tool_dir("grader-fake-sanitizer");
    const auto tool = tool_dir.path() / "compute-sanitizer";
    const auto noted = tool_dir.path() / "niceness.txt";
    std::ofstream(tool) << "#!/bin/sh\nnice > '" << noted.string() << "'\n";
    std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
    setenv("COURSE_COMPUTE_SANITIZER", tool.c_str(), 1);
    grader::graded_run run;
    run.tests = {grader::graded_test{}};
    run.tests[0].id = "FakeHost.Passes";
    run.tests[0].gpu = true;
    run.tests[0].status = test_status::failed;
    grader::explain_failures(fake_options(), run);
    unsetenv("COURSE_COMPUTE_SANITIZER");
    EXPECT_EQ(grader::file_text(noted), std::to_string(std::min(19, own_niceness() + 10)) + "\n");
}

// A check of stream order runs only in a test declared as one
// (GRADED_STREAM_TEST), which the grader never runs with one hardware
// queue; elsewhere it fails the test, saying why.
TEST(Runner, ACheckOfStreamOrderNeedsATestDeclaredAsOne) {
    env_var unmarked("FAKE_UNMARKED_STREAM_CHECK");
    auto options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.AcrossStreams"};
    const auto tests = grader::judge_graded_tests(options).tests;
    const auto& passes = find(tests, "FakeHost.Passes");
    EXPECT_EQ(passes.status, test_status::failed);
    EXPECT_NE(all_messages(passes).find("FakeHost.Passes uses a check of stream order, which checks the order of "
                                        "work on different streams, but is not declared with GRADED_STREAM_TEST"),
              std::string::npos)
        << all_messages(passes);
    EXPECT_EQ(find(tests, "FakeHost.AcrossStreams").status, test_status::passed);
}

// A rerun's CUDA context opens one hardware queue (cheaper to create and
// destroy, explain.cpp); a graded run's process that runs a test of stream
// order keeps the driver's default.
TEST(Runner, SanitizerRerunsAskForOneHardwareQueue) {
    const course::temp_dir tool_dir("grader-fake-sanitizer");
    const auto tool = tool_dir.path() / "compute-sanitizer";
    const auto rerun_noted = tool_dir.path() / "rerun-connections.txt";
    std::ofstream(tool) << "#!/bin/sh\necho \"${CUDA_DEVICE_MAX_CONNECTIONS:-unset}\" > '" << rerun_noted.string()
                        << "'\n";
    std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
    setenv("FAKE_CONNECTIONS", tool_dir.path().c_str(), 1);
    setenv("COURSE_COMPUTE_SANITIZER", tool.c_str(), 1);
    auto options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.AcrossStreams"};
    grader::graded_run run = grader::run_graded_tests(options);
    unsetenv("FAKE_CONNECTIONS");
    ASSERT_EQ(run.tests.size(), 2u);
    EXPECT_EQ(run.tests[0].status, test_status::passed) << all_messages(run.tests[0]);
    EXPECT_EQ(grader::file_text(tool_dir.path() / "Passes"), "unset");
    run.tests[0].gpu = true;
    run.tests[0].status = test_status::failed;
    grader::explain_failures(options, run);
    unsetenv("COURSE_COMPUTE_SANITIZER");
    EXPECT_EQ(grader::file_text(rerun_noted), "1\n");
}

// After a crash, a process that runs neither a timed test nor one of stream
// order opens one hardware queue; one that runs a test of stream order
// keeps the driver's default, and in a parallel wave such tests get a line
// of their own, so that the others need not keep it.
TEST(Runner, ARestartOpensOneHardwareQueueUnlessItRunsATestOfStreamOrder) {
    const course::temp_dir noted("grader-connections");
    setenv("FAKE_CONNECTIONS", noted.path().c_str(), 1);
    env_var crash("FAKE_CRASH");
    grader::step_timings timings;
    auto options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.Crashes", "FakeHost.Last", "FakeHost.AcrossStreams"};
    options.timings = &timings;
    const auto tests = grader::judge_graded_tests(options).tests;
    unsetenv("FAKE_CONNECTIONS");
    EXPECT_EQ(find(tests, "FakeHost.Crashes").status, test_status::crashed);
    EXPECT_EQ(find(tests, "FakeHost.Last").status, test_status::passed);
    EXPECT_EQ(find(tests, "FakeHost.AcrossStreams").status, test_status::passed);
    EXPECT_EQ(grader::file_text(noted.path() / "Passes"), "unset") << "the first process runs every test";
    EXPECT_EQ(grader::file_text(noted.path() / "Last"), "1") << "a restart with no test of stream order";
    EXPECT_EQ(grader::file_text(noted.path() / "AcrossStreams"), "unset");
    EXPECT_NE(timings.format().find("student: start-up (one hardware queue)"), std::string::npos)
        << timings.format();

    // In one line, the restart still has the test of stream order to run:
    // the default, for Last too.
    grader::run_options one_line = fake_options();
    setenv("FAKE_CONNECTIONS", noted.path().c_str(), 1);
    grader::test_processes processes(one_line, one_line.tests_program, "record", "one-line", one_line.per_test_limit);
    processes.one_hardware_queue_unless({"FakeHost.AcrossStreams"});
    const auto results =
        processes.run({"FakeHost.Passes", "FakeHost.Crashes", "FakeHost.Last", "FakeHost.AcrossStreams"});
    unsetenv("FAKE_CONNECTIONS");
    EXPECT_EQ(results.at("FakeHost.Last").status, test_status::passed);
    EXPECT_EQ(grader::file_text(noted.path() / "Last"), "unset");
}

// The judge opens one hardware queue, where it judges a test of stream
// order too: that verdict comes from what the student's program recorded,
// and the student's program there keeps the driver's default.
TEST(Runner, TheJudgeOpensOneHardwareQueue) {
    const course::temp_dir noted("grader-connections");
    setenv("FAKE_CONNECTIONS", noted.path().c_str(), 1);
    auto options = fake_options();
    options.only = {"FakeHost.Passes", "FakeHost.AcrossStreams"};
    const auto tests = grader::judge_graded_tests(options).tests;
    unsetenv("FAKE_CONNECTIONS");
    EXPECT_EQ(find(tests, "FakeHost.AcrossStreams").status, test_status::passed);
    EXPECT_EQ(grader::file_text(noted.path() / "AcrossStreams"), "unset");
    EXPECT_EQ(grader::file_text(noted.path() / "Passes.judge"), "1");
    EXPECT_EQ(grader::file_text(noted.path() / "AcrossStreams.judge"), "1");
}

TEST(TestProcesses, GlibcIsAskedForHugePagesAndTheGradersOwnTunablesWin) {
    const std::string alone = grader::glibc_tunables_for_tests(nullptr);
    EXPECT_EQ(alone.rfind("glibc.malloc.hugetlb=1:", 0), 0u) << alone;
    EXPECT_NE(alone.back(), ':') << "no empty setting at the end: " << alone;
    EXPECT_EQ(grader::glibc_tunables_for_tests(""), alone);
    // glibc takes the last of two settings of one tunable: the grader's own.
    const std::string with_own = grader::glibc_tunables_for_tests("glibc.malloc.hugetlb=0");
    EXPECT_EQ(with_own, alone + ":glibc.malloc.hugetlb=0");
}

// Without the sandbox too, the student's program may start threads, not
// processes (course-threads-only needs no namespaces); the judge may.
TEST(Runner, ProcessesAreRefusedOutsideTheSandboxToo) {
#ifndef COURSE_THREADS_ONLY
    GTEST_SKIP() << "the grader was built without libseccomp (libseccomp-dev), so nothing is refused";
#else
    const auto marks = scratch_dir() / "fork-marks";
    std::filesystem::create_directories(marks);
    setenv("FAKE_FORK", marks.c_str(), 1);
    auto options = fake_options();
    options.only = {"FakeHost.Passes"};
    options.threads_only_launcher = COURSE_THREADS_ONLY;
    const auto run = grader::run_graded_tests(options);
    unsetenv("FAKE_FORK");
    ASSERT_EQ(run.tests.size(), 1u);
    EXPECT_EQ(run.tests[0].status, test_status::passed) << all_messages(run.tests[0]);
    EXPECT_FALSE(std::filesystem::exists(marks / "forked-child-ran"));
    EXPECT_FALSE(std::filesystem::exists(marks / "popen-child-ran"));
    EXPECT_TRUE(std::filesystem::exists(marks / "thread-ran"));
    EXPECT_EQ(run.notes.size(), 2u);
#endif
}

// The grader reads the student's library's symbol table with nm and leaves it
// where the test programs read it (they may start no process to run nm).
TEST(Runner, WritesTheLibrarysSymbolTableForTheTestPrograms) {
    auto options = fake_options();
    options.only = {"FakeHost.Passes"};
    options.implementation_library = SOME_STATIC_LIBRARY;
    const auto run = grader::run_graded_tests(options);
    ASSERT_EQ(run.tests.size(), 1u);
    const std::string table = grader::file_text(grader::implementation_symbols_file(options));
    // "libgrader_system.a[process.cpp.o]: ..." for each symbol.
    EXPECT_NE(table.find("process.cpp.o]: "), std::string::npos) << table.substr(0, 300);
}
