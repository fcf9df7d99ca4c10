// A stand-in for a lesson's graded-test program, built on the real harness,
// whose tests misbehave on request (environment variables set by
// test_runner.cpp): crash, hang, throw, or cheat. No GPU needed.
//
// It is built twice: as fake_graded_tests (the "student's" program, which
// obeys the requests) and, with FAKE_REFERENCE defined, as fake_graded_judge
// (the reference, which ignores them), just as each lesson's tests are built
// against the exercise and against the solution.
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <atomic>
#include <csignal>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "course/error.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/graders_clock.hpp"
#include "course/testing/harness.hpp"
#include "course/testing/performance.hpp"

namespace {
bool asked(const char* what) {
#ifdef FAKE_REFERENCE
    (void)what;
    return false;
#else
    return std::getenv(what) != nullptr;
#endif
}

// The "code under test": the answer is 42 unless asked to get it wrong.
int answer() { return asked("FAKE_WRONG") ? 41 : 42; }

// A cheat, as a student who read harness.cpp could write it: before main(),
// write events to the grader's descriptor and leave with exit code 0.
//  FAKE_FORGE: a "passed" for every test, as GoogleTest would, then exit.
//  FAKE_FORGE_SKIPPING: the same, but for Fake.Passes, which the judge
//              runs first and waits for the claim of.
//  FAKE_FLOOD: events for tests nobody asked for, repeats, garbage and a
//              line far past any limit, then exit; forever, were each
//              event believed to be progress.
void write_events(int fd, const std::string& text) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}
const bool cheat_before_main = [] {
    const char* fd_text = std::getenv(course::testing::events_fd_variable);
    if (!fd_text || (!asked("FAKE_FORGE") && !asked("FAKE_FORGE_SKIPPING") && !asked("FAKE_FLOOD"))) return false;
    const int fd = std::atoi(fd_text);
    const char* tests[] = {"FakeHost.Passes", "FakeHost.Fails", "FakeHost.Crashes", "FakeHost.Hangs",
                           "FakeHost.Unfinished", "FakeHost.Last", "FakeHost.Speed"};
    std::string events;
    for (const char* t : tests) {
        const std::string id = t;
        if (asked("FAKE_FORGE_SKIPPING") && id == "FakeHost.Passes") continue;
        if (asked("FAKE_FLOOD")) {
            events += R"({"event":"end","test":")" + id + R"(","status":"passed","messages":[],"ms":1})" "\n";
            events += R"({"event":"start","test":"Other.Test"})" "\n";
            events += "{not json\n";
        }
        events += R"({"event":"start","test":")" + id + "\"}\n";
        events += R"({"event":"end","test":")" + id + R"(","status":"passed","messages":[],"ms":1})" "\n";
        if (asked("FAKE_FLOOD")) events += R"({"event":"start","test":")" + id + "\"}\n";
    }
    if (asked("FAKE_FLOOD")) events += std::string(1 << 20, 'x') + "\n";
    write_events(fd, events);
    std::printf("[  PASSED  ] 7 tests.\n");
    std::_Exit(0);
}();

// FAKE_FORK=<folder>: a helper process, as a student who wants the work done
// where the graded process's record cannot see it would start one: forked
// before main(), before any test (the child leaves <folder>/forked-child-ran),
// and run with popen() during Fake.Passes (<folder>/popen-child-ran). A
// thread started in that test leaves <folder>/thread-ran: threads are allowed.
const char* fork_marks() { return asked("FAKE_FORK") ? std::getenv("FAKE_FORK") : nullptr; }
const bool forked_before_main = [] {
    const char* folder = fork_marks();
    if (!folder) return false;
    const pid_t child = fork();
    if (child == 0) {
        std::ofstream(std::string(folder) + "/forked-child-ran") << "ran";
        std::_Exit(0);
    }
    if (child > 0) waitpid(child, nullptr, 0);
    return child > 0;
}();
// FAKE_LINGER: a helper forked before main() that outlives the program: it
// keeps every descriptor it was given and waits (60 s) for work that never
// comes, as lesson01's cheat helper_process does where its fork is allowed
// (under a tool).
const bool lingering_helper = [] {
    if (!asked("FAKE_LINGER")) return false;
    const pid_t child = fork();
    if (child == 0) {
        sleep(60);
        std::_Exit(0);
    }
    return child > 0;
}();
void start_helpers_during_a_test() {
    const char* folder = fork_marks();
    if (!folder) return;
    if (FILE* helper = popen(("echo ran > " + std::string(folder) + "/popen-child-ran").c_str(), "r")) pclose(helper);
    std::thread([folder] { std::ofstream(std::string(folder) + "/thread-ran") << "ran"; }).join();
}
}  // namespace

// FAKE_MARKS=<folder>: the judge leaves <folder>/<test>.judge as its test
// body starts, and the student's program looks for it while it runs the same
// test. A correctness test's judge starts at once (it works while the
// student's program does); a speed test's only once the student's has ended.
// A mark holds when it was left, on the machine's steady clock, which
// test_runner.cpp reads too.
void leave_mark(const char* dir, const std::string& file) {
    std::ofstream(std::string(dir) + "/" + file) << std::chrono::steady_clock::now().time_since_epoch().count();
}
void judge_leaves_mark(const std::string& test) {
#ifdef FAKE_REFERENCE
    if (const char* dir = std::getenv("FAKE_MARKS")) leave_mark(dir, test + ".judge");
#else
    (void)test;
#endif
}
// ... and the student's program leaves <folder>/<test>.program.
void program_leaves_mark(const std::string& test) {
#ifndef FAKE_REFERENCE
    if (const char* dir = std::getenv("FAKE_MARKS")) leave_mark(dir, test + ".program");
#else
    (void)test;
#endif
}
bool judge_started(const std::string& test, std::chrono::milliseconds within) {
    const char* dir = std::getenv("FAKE_MARKS");
    if (!dir) return false;
    const auto mark = std::filesystem::path(dir) / (test + ".judge");
    for (const auto until = std::chrono::steady_clock::now() + within; std::chrono::steady_clock::now() < until;) {
        if (std::filesystem::exists(mark)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::filesystem::exists(mark);
}

// FAKE_JUDGE_EXIT=<file>: the judge, at the exit of a process that judged
// tests (not of the one that lists them), takes a second, as a CUDA
// context's teardown takes some time, and then writes <file>.
#ifdef FAKE_REFERENCE
struct slow_exit {
    ~slow_exit() {
        const char* file = std::getenv("FAKE_JUDGE_EXIT");
        const char* mode = std::getenv(course::testing::evidence_mode_variable);
        if (!file || !mode || std::string(mode) != "judge") return;
        std::this_thread::sleep_for(std::chrono::seconds(1));
        std::ofstream(file) << "exited";
    }
} const judge_exits_slowly;
#endif

// Prints `bytes` of debugging output, in lines of `line` characters.
void chatter(std::size_t bytes, std::size_t line) {
    std::string text(line - 1, 'x');
    text += '\n';
    for (std::size_t done = 0; done < bytes; done += text.size()) std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

// FAKE_NICENESS=<file>: the student's program writes the niceness it runs at there.
void note_niceness() {
    if (!asked("FAKE_NICENESS")) return;
    errno = 0;
    const int niceness = getpriority(PRIO_PROCESS, 0);
    std::ofstream(std::getenv("FAKE_NICENESS")) << (errno == 0 ? std::to_string(niceness) : "unknown");
}

// FAKE_CONNECTIONS=<folder>: the program writes there, in a file named
// after `test` (the judge: `test`.judge), the number of hardware queues its
// process would ask the CUDA driver for ("unset": the driver's default).
// A note, not a misbehaviour: the judge reads it too.
void note_connections(const std::string& test) {
    const char* folder = std::getenv("FAKE_CONNECTIONS");
    if (!folder) return;
    const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
#ifdef FAKE_REFERENCE
    const std::string file = test + ".judge";
#else
    const std::string& file = test;
#endif
    std::ofstream(std::filesystem::path(folder) / file)
        << (connections ? connections : "unset");
}

// FAKE_CHATTY: a right answer after 2 GiB of debugging output, more than
// the 1 GiB any file the program writes may hold.
GRADED_HOST_TEST(Fake, Passes, 1, "a test that passes") {
    judge_leaves_mark("Passes");
    note_niceness();
    note_connections("Passes");
    // FAKE_UNMARKED_STREAM_CHECK: a check of stream order in a test not declared as one.
    if (asked("FAKE_UNMARKED_STREAM_CHECK")) course::testing::require_across_streams("a check of stream order");
    if (asked("FAKE_MARKS")) EXPECT_TRUE(judge_started("Passes", std::chrono::seconds(10))) << "the judge waited";
    if (asked("FAKE_CHATTY")) chatter(std::size_t{2} << 30, 4096);
    start_helpers_during_a_test();
    EXPECT_EQ(course::testing::observe("answer", answer()), 42);
}

// FAKE_EXPLAINED: the failure is one the test explained by a cause no
// compute-sanitizer tool looks at (explained.hpp); FAKE_EXPLAINED_ONE: a
// second failure, not so explained, follows it.
GRADED_HOST_TEST(Fake, Fails, 2, "a test that fails") {
    (void)course::testing::observe("answer", answer());
    SCOPED_TRACE("n = 129");
    if (asked("FAKE_EXPLAINED") || asked("FAKE_EXPLAINED_ONE"))
        course::testing::next_failure_explained_beyond_the_tools();
    ADD_FAILURE() << "element 128: expected 1, got NaN (never written)";
    if (asked("FAKE_EXPLAINED_ONE")) ADD_FAILURE() << "element 129: expected 1, got 0";
}

// FAKE_LONG_LINES: lines of a megabyte each before the crash, which the
// crash report quotes as the program's last output.
GRADED_HOST_TEST(Fake, Crashes, 1, "a test that may crash") {
    if (asked("FAKE_LONG_LINES")) chatter(std::size_t{8} << 20, std::size_t{1} << 20);
    if (asked("FAKE_CRASH")) std::raise(SIGSEGV);
    EXPECT_EQ(course::testing::observe("answer", answer()), 42);
}

GRADED_HOST_TEST(Fake, Hangs, 1, "a test that may hang") {
    while (asked("FAKE_HANG")) sleep(1);
    EXPECT_EQ(course::testing::observe("answer", answer()), 42);
}

GRADED_HOST_TEST(Fake, Unfinished, 1, "a test of unfinished work") {
    if (asked("FAKE_TODO")) course::todo("fake::function");
    EXPECT_EQ(course::testing::observe("answer", answer()), 42);
}

// Its check in the student's program was tampered with (FAKE_TAMPER): the
// program says "passed" whatever the answer. The recorded answer still tells.
GRADED_HOST_TEST(Fake, Last, 1, "the last test") {
    // Run after a failed test: the judge no longer works ahead.
    judge_leaves_mark("Last");
    note_connections("Last");
    if (asked("FAKE_MARKS"))
        EXPECT_FALSE(judge_started("Last", std::chrono::milliseconds(300))) << "the judge worked ahead of a failure";
    const int got = course::testing::observe("answer", answer());
    if (!asked("FAKE_TAMPER")) EXPECT_EQ(got, 42) << "the answer is 42";
}

// Checks nothing the code under test produced: the judge cannot confirm it.
GRADED_HOST_TEST(Fake, NoEvidence, 1, "a test that records no evidence") {}

// Listed with its points, but GoogleTest skips DISABLED_ tests silently: the
// grader must notice that it never reported.
GRADED_HOST_TEST(Fake, DISABLED_Never, 1, "a test that never reports") {}

// Its verdict is left to the judge, as a speed compared with a baseline is.
// The judge times it, as it replays a kernel's calls (GRADED_PERF_TEST);
// FAKE_SPEED_TIMED_BY_PROGRAM: the student's program does, as it times a
// cache or an allocator (GRADED_PERF_TEST_SYSTEM). Both programs read it (it
// changes the list), so it is no request of the student's program alone.
// FAKE_SPEED_RECORD_ALONE: the judge times it, but the record is its figure
// where a call cannot be replayed (GRADED_PERF_TEST_STREAMS, lesson05).
bool speed_timed_by_judge() { return std::getenv("FAKE_SPEED_TIMED_BY_PROGRAM") == nullptr; }
bool speed_record_alone() { return std::getenv("FAKE_SPEED_RECORD_ALONE") != nullptr; }
COURSE_GRADED_TEST_R_(FakeHost, Speed, 3, "a performance test", performance, false, true, false,
                      speed_timed_by_judge(), false, speed_record_alone(), ::course::testing::host_test) {
    judge_leaves_mark("Speed");
    program_leaves_mark("Speed");
    if (asked("FAKE_MARKS"))
        EXPECT_FALSE(judge_started("Speed", std::chrono::milliseconds(300))) << "the judge ran beside a speed test";
    const int speed = course::testing::observe("speed", asked("FAKE_SLOW") ? 41 : answer());
    if (course::testing::verdict_left_to_judge()) {
        // Whatever the student's program says of its speed is not shown.
        course::testing::report_figure("speed 1000000, claimed by the program under test");
        return;
    }
    course::testing::report_figure("speed " + std::to_string(speed) + "; 42 is needed");
    EXPECT_GE(speed, 42) << "too slow";
}

// A check of the order of work on different streams (GRADED_STREAM_TEST),
// which the grader must not run with one hardware queue.
COURSE_GRADED_TEST_S_(FakeHost, AcrossStreams, 1, "a test of stream order", correctness, false, false, false, false,
                      true, ::course::testing::host_test) {
    note_connections("AcrossStreams");
    course::testing::require_across_streams("a check of stream order");
    EXPECT_EQ(course::testing::observe("answer", answer()), 42);
}

// FAKE_PATCHED_CLOCK: the student's program replaces clock_gettime, which
// std::chrono reads, with one that stands still while the code under test
// works, as lesson03's and lesson04's cheat patched_clock do: any clock read
// in the program says its calls took no time.
#ifndef FAKE_REFERENCE
std::atomic<long long> hidden_ns{0};
extern "C" int clock_gettime(clockid_t id, struct timespec* ts) {
    using real_fn = int (*)(clockid_t, struct timespec*);
    static const auto real = reinterpret_cast<real_fn>(dlsym(RTLD_NEXT, "clock_gettime"));
    static const bool patched = std::getenv("FAKE_PATCHED_CLOCK") != nullptr;
    const int status = real(id, ts);
    if (status != 0 || !patched || id != CLOCK_MONOTONIC) return status;
    const long long ns = ts->tv_sec * 1'000'000'000LL + ts->tv_nsec - hidden_ns.load();
    ts->tv_sec = ns / 1'000'000'000LL;
    ts->tv_nsec = ns % 1'000'000'000LL;
    return status;
}
#endif

namespace {
// The "code under test" of FakeHost.HostClock: a call takes 200 us
// (FAKE_SLOW_CALLS: 2 ms), measured on the real clock.
void fake_call() {
    timespec start{}, end{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &start);
    std::this_thread::sleep_for(std::chrono::microseconds(asked("FAKE_SLOW_CALLS") ? 2000 : 200));
    clock_gettime(CLOCK_MONOTONIC_RAW, &end);
#ifndef FAKE_REFERENCE
    hidden_ns += (end.tv_sec - start.tv_sec) * 1'000'000'000LL + (end.tv_nsec - start.tv_nsec);
#endif
}
}  // namespace

// Host work timed on the grader's clock (graders_clock.hpp), as lesson03's
// cache hit and lesson04's pool are: under 1 ms a call is needed.
COURSE_GRADED_TEST_P_(FakeHost, HostClock, 2, "host work timed on the grader's clock", performance, false, true,
                      false, ::course::testing::host_test) {
    long made = 0;
    const auto timing = course::testing::time_on_graders_clock("a fake call", 4, [&] {
        fake_call();
        ++made;
    });
    EXPECT_EQ(course::testing::observe("calls made", made), timing.calls)
        << "the program made another number of calls than the grader asked for";
    if (!timing.ns_per_call) return;  // the grader's clock decides, in the judge
    course::testing::report_figure(std::to_string(static_cast<long>(*timing.ns_per_call / 1000)) +
                                   " us a call; under 1000 us is needed");
    EXPECT_LT(*timing.ns_per_call, 1e6) << "too slow";
}
