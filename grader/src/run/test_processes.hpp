#pragma once
// Runs tests of one program (the student's tests program or the judge) in as
// many processes as it takes, and bounds everything the program can do to
// the grader: each process must finish a test it was asked for or it is the
// last; each test gets one time limit; event lines are checked and capped
// (test_events.hpp). A crash or a hang costs the test in flight; the rest
// run in a fresh process.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "run/process_refusals.hpp"
#include "run/run_options.hpp"
#include "run/test_events.hpp"
#include "system/process.hpp"

namespace grader {

// What points a program at the grader's words for it (its claims, "go"):
// their folder, and how long it waits for one at most: long, since a word
// may come long after a test's limit (the program stops waiting at once if
// the grader dies, and the grader's own limits end every other wait).
std::vector<std::pair<std::string, std::string>> grader_words_env(const std::filesystem::path& claims,
                                                                  std::chrono::milliseconds per_test_limit);

// CUDA_DEVICE_MAX_CONNECTIONS=1: the process's CUDA contexts open one
// hardware queue (connection), not the driver's default 8. A context's
// creation and teardown take a lock in the driver that every process on the
// machine waits for, and both take longer the more queues the context opens:
// on an H200, 16 processes starting at once each took 1.9 s to create a
// context and 1.1 s to destroy it with 8, and 0.57 s and 0.36 s with 1. A
// batch starts a process for every run and rerun. One queue runs all work in
// the order it was issued, so only a process whose verdicts cannot depend on
// work of different streams running side by side may have it: a tool's rerun
// (explain.cpp), the judge (concurrent_judge.cpp), a graded run's process
// with neither a timed test nor one of stream order (one_hardware_queue_unless).
inline const std::pair<std::string, std::string> one_hardware_queue_env{"CUDA_DEVICE_MAX_CONNECTIONS", "1"};

// GLIBC_TUNABLES for the test programs: `inherited` (the grader's own, or
// null) after the course's. A graded test allocates host vectors of up to
// 128 MiB (2^24 doubles), and with the kernel's 4 KiB pages each costs 32,768
// page faults: about 100 ms on the H200's host, a sixth of lesson01's largest
// test. So glibc is asked to back what it allocates with huge pages
// (hugetlb=1, where the kernel makes them on request: transparent_hugepage
// "madvise" or "always"), to take blocks of up to 32 MiB (the most it
// allows) from its heap rather than from mmap, and to keep what is freed on
// the heap for the next test rather than hand it back (trim_threshold).
// A glibc older than 2.35 does not know hugetlb and ignores it.
std::string glibc_tunables_for_tests(const char* inherited);

class test_processes {
public:
    using clock = std::chrono::steady_clock;
    using env_list = std::vector<std::pair<std::string, std::string>>;
    using on_finish_fn = std::function<void(const std::string&, const outcome&)>;
    using on_start_fn = std::function<void(const std::string&)>;

    // `evidence_mode` is "record" for the student's program (untrusted: it
    // runs in the sandbox, under the run's limits) and "judge" for the judge.
    test_processes(const run_options& options, std::filesystem::path program, std::string evidence_mode,
                   std::string log_prefix, std::chrono::milliseconds per_test_limit, env_list env = {})
        : options_(options), program_(std::move(program)), evidence_mode_(std::move(evidence_mode)),
          log_prefix_(std::move(log_prefix)), limit_(per_test_limit), env_(std::move(env)) {}

    // Runs `ids`, then `then` in a second phase of the same process (harness.hpp,
    // --course-then); `on_finish` hears of each test as it ends, and may
    // cancel() tests that have not started.
    std::map<std::string, outcome> run(const std::vector<std::string>& ids, const on_finish_fn& on_finish = {},
                                       const std::vector<std::string>& then = {});

    // Tighter limits for some tests, each from its start (run_options.hpp);
    // the limit given above stays the other tests' and the start-up's.
    void limit_tests(test_time_limits limits) { test_limits_ = std::move(limits); }

    // Runs the program under `tool` (a profiler's command line, which ends
    // where the program's begins), inside the sandbox where there is one;
    // `writable` is shown writable to it there (where the tool writes).
    void run_under(std::vector<std::string> tool, std::filesystem::path writable) {
        tool_ = std::move(tool);
        tool_writable_ = std::move(writable);
    }

    // Its processes run this much nicer than the grader (child_process's
    // niceness): an explanation's reruns, which only explain, give the CPU
    // to the graded runs beside them.
    void lower_cpu_priority(int niceness) { niceness_ = niceness; }

    // Once `*flag` is true (set from any thread), the process running is
    // killed within stop_poll, the test in flight ends "crashed" with the
    // reason, and no other process starts: an explanation's rerun stopped
    // for a timed test (gpu_gate::enter_yielding).
    void stop_when(const std::atomic<bool>* flag) { stop_ = flag; }
    static constexpr std::chrono::milliseconds stop_poll{50};

    // Under a tool (run_under), which ends only once every process it
    // follows has ended: once every test asked for has ended, whatever still
    // runs the program `grace` later (a helper it forked that waits for
    // work, or the program stuck in its exit) is killed, so that the tool
    // ends and writes its report; the tool itself is left to end, up to the
    // limit as before. On an H200, lesson01's cheat helper_process left such
    // a helper under Nsight Compute, which waited for it to its limit (60 s),
    // and every profile of the class after it waited for the GPU meanwhile.
    void stop_leftovers_after(std::chrono::milliseconds grace) { leftover_grace_ = grace; }

    // Whether the last process ended by itself rather than killed at its
    // limit or stopped: a tool's report is whole only then.
    bool ended_by_itself() const { return ended_by_itself_; }

    // Hears of each test as it starts (before its time limit starts to run).
    void on_start(on_start_fn fn) { on_start_ = std::move(fn); }

    // Called before each process but the first (the one before ended: a
    // crash, a sticky CUDA error, a test out of time), while the run has no
    // process of this program running.
    void before_restart(std::function<void()> fn) { before_restart_ = std::move(fn); }

    // During these tests (the timed ones), where the program runs outside
    // the sandbox, the grader watches for other processes of its tree
    // holding the GPU (gpu_helpers.hpp); a test during which one did fails.
    void watch_gpu_helpers_during(std::set<std::string> ids) { watched_ = std::move(ids); }

    // Once every test asked for has ended, the last process's exit is not
    // waited for: it is reaped in the background (its CUDA context's
    // teardown took 0.07 s of a warm 1.25 s `grader run lesson01` on an
    // H200). For the course's judge of a run that shares no GPU: in a batch, a
    // process still exiting may hold the GPU that another run's timed test
    // must have to itself.
    void let_the_last_exit_go() { let_the_last_exit_go_ = true; }

    // After a process that ended before its tests did (a crash, a sticky
    // CUDA error, a test out of time), what is left of the first phase runs
    // in up to `lines` processes at once, each on its own share of the tests
    // and restarting as the one line did, rather than in one process after
    // another. Not the tests in `keep_in_line` (timed ones: a run's timed
    // test must have the GPU to itself) nor the second phase, which run
    // after, in one line. In a class's batch on an H200, lesson01's
    // submissions that read out of bounds (a process per test) were judged
    // in 11 to 14 s this way against 17 to 23 s in one line. A timed run of
    // another submission that waits for the GPU waits for the wave's
    // processes (the lines do not step aside between processes, as one line
    // does): the wave is short. on_finish and on_start are then called from
    // several threads, one call at a time.
    void restart_in_parallel(int lines, std::set<std::string> keep_in_line) {
        parallel_restarts_ = lines;
        keep_in_line_ = std::move(keep_in_line);
    }

    // A process whose tests are all outside `need_queues` (the timed tests,
    // and those that check the order of work on different streams,
    // GRADED_STREAM_TEST) starts with one hardware queue, the cheaper
    // context to create and destroy (one_hardware_queue_env says why). In
    // practice such a process is a restart after a crash, since a lesson's
    // first process runs its timed and stream tests too. One queue runs all
    // work in the order it was issued: a correct program gives the same
    // answers, a call that ignored its stream would look right (so those
    // tests keep the default), and a timed test would time streams of the
    // student's run one after another, where the solution's were measured
    // side by side (so those do too). In a parallel wave (restart_in_parallel)
    // the tests in `need_queues` get a line of their own, so that the other
    // lines can have one queue.
    void one_hardware_queue_unless(std::set<std::string> need_queues) { need_queues_ = std::move(need_queues); }

    // Takes tests that have not started off the list (from on_finish).
    void cancel(const std::vector<std::string>& ids);

    // Event lines that were not taken: for tests not asked for or not in
    // progress, repeated, malformed or too long.
    int ignored_events() const { return ignored_; }

    // The processes the program tried to start and was refused, in the
    // report's words, each said once (process_refusals.hpp).
    const std::vector<std::string>& refused_processes() const { return refused_; }

private:
    std::vector<std::string> command(std::vector<std::string> argv) const;
    bool sandboxed() const { return student_code() && options_.bwrap.has_value(); }
    // Whether the program runs under course-threads-only: the student's code,
    // where the launcher was built, and not under a tool: ncu and
    // compute-sanitizer start the program themselves and inject into it, and
    // on the H200 neither saw a kernel of a program they started through the
    // launcher. Their reruns only explain: no grade comes from them.
    bool threads_only() const {
        return student_code() && tool_.empty() && !options_.threads_only_launcher.empty() &&
               process_refusals::available();
    }
    bool student_code() const {
        // A practice grade's judge is the student's program too (run/grade.cpp).
        return evidence_mode_ == "record" || options_.judge_program == options_.tests_program;
    }
    // Notes what `refusals` heard (once the process has ended).
    void note_refused(process_refusals* refusals);
    void run_rounds(std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                    const std::vector<std::string>& then, bool whole);
    // Whether it ran what is left in parallel lines (restart_in_parallel).
    bool run_a_parallel_wave(std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                             const std::vector<std::string>& then);
    void tell_finished(const std::string& id, const outcome& result);  // on_finish, one call at a time
    // Returns whether another process may learn more; `exiting`: the process
    // ended every test asked for and is left to exit (let_the_last_exit_go).
    // `one_queue`: the process was started with one hardware queue (said in `--timings`).
    bool run_one_process(child_process& child, clock::time_point spawned, bool one_queue, bool& exiting,
                         process_refusals* refusals, const std::filesystem::path& log,
                         std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                         const std::vector<std::vector<std::string>>& phases);
    void mark_missing(std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                      const std::string& why);
    // How `--timings` names this program's steps.
    std::string who() const { return log_prefix_ == "run" ? "student" : log_prefix_; }

    const run_options& options_;
    std::filesystem::path program_;
    std::string evidence_mode_;
    std::string log_prefix_;
    std::chrono::milliseconds limit_;
    test_time_limits test_limits_;
    env_list env_;
    on_finish_fn on_finish_;
    on_start_fn on_start_;
    std::function<void()> before_restart_;
    std::vector<std::string> remaining_;
    std::vector<std::string> tool_;
    std::filesystem::path tool_writable_;
    std::atomic<int> round_ = 0;
    std::atomic<int> ignored_ = 0;
    int parallel_restarts_ = 1;
    std::set<std::string> keep_in_line_;
    // one_hardware_queue_unless's tests; none: every process keeps the driver's default.
    std::optional<std::set<std::string>> need_queues_;
    // Whether a process that runs `ids` starts with one hardware queue (one_hardware_queue_unless).
    bool one_queue_for(const std::vector<std::string>& ids) const;
    std::mutex callback_mutex_;  // on_finish, on_start and the refusals noted, one at a time
    std::vector<std::string> refused_;
    std::set<std::string> watched_;
    const std::atomic<bool>* stop_ = nullptr;
    bool let_the_last_exit_go_ = false;
    std::optional<std::chrono::milliseconds> leftover_grace_;
    std::atomic<bool> ended_by_itself_ = false;
    int niceness_ = 0;
    bool stop_asked() const { return stop_ && stop_->load(); }
};

}  // namespace grader
