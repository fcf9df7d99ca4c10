// The sandbox for graded runs, with the real bubblewrap (skipped, saying so,
// where it is not installed; CI installs it).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "course/temp_dir.hpp"
#include "run/runner.hpp"
#include "run/sandbox.hpp"
#include "run/test_processes.hpp"
#include "system/process.hpp"

namespace {

namespace fs = std::filesystem;

struct sandbox_test : ::testing::Test {
    void SetUp() override {
        bwrap = grader::find_bubblewrap();
        if (!bwrap) GTEST_SKIP() << "bubblewrap is not installed or may not create namespaces here";
        fs::create_directories(dir.path() / "secret");
        std::ofstream(dir.path() / "secret" / "answer.txt") << "42\n";
    }
    // Runs a shell command in the sandbox; its output is in `output`.
    grader::exit_status run(const std::string& script, const grader::sandbox_spec& spec) {
        return grader::run_command(grader::sandboxed_command(*bwrap, spec, {"/bin/sh", "-c", script}), output);
    }
    std::string output_text() const { return grader::file_text(output); }
    // A graded run of the fake programs' `tests` in the sandbox, the CUDA
    // runtime they load kept visible (as `grader run` keeps the toolkit).
    grader::run_options graded_run_of(std::vector<std::string> tests) const {
        grader::run_options options;
        options.tests_program = FAKE_GRADED_TESTS;
        options.judge_program = FAKE_GRADED_JUDGE;
        options.log_dir = dir.path() / "logs";
        options.only = std::move(tests);
        options.bwrap = bwrap;
        options.sandbox.kept = {COURSE_CUDA_TOOLKIT_DIR};
        return options;
    }

    course::temp_dir dir{"grader-sandbox-test"};
    fs::path output = dir.path() / "output.txt";
    std::optional<fs::path> bwrap;
};

}  // namespace

TEST_F(sandbox_test, HiddenFoldersAreEmpty) {
    const auto secret = dir.path() / "secret" / "answer.txt";
    ASSERT_TRUE(fs::exists(secret));
    const auto status = run("cat " + secret.string(), {{dir.path() / "secret"}, {}, {}});
    EXPECT_NE(status.code, 0) << output_text();
    EXPECT_EQ(output_text().find("42"), std::string::npos) << output_text();
}

TEST_F(sandbox_test, ShownFilesAndWritableFoldersComeBack) {
    const auto shown = dir.path() / "secret" / "answer.txt";
    const auto writable = dir.path() / "evidence";
    fs::create_directories(writable);
    // The whole temp folder is hidden; one file is shown again, and one folder is writable.
    const auto status = run("cat " + shown.string() + " && echo seen > " + (writable / "note").string(),
                            {{dir.path()}, {shown}, {writable}});
    EXPECT_EQ(status.code, 0) << output_text();
    EXPECT_NE(output_text().find("42"), std::string::npos) << output_text();
    EXPECT_TRUE(fs::exists(writable / "note"));
}

TEST_F(sandbox_test, TheRestIsReadOnlyAndThereIsNoNetwork) {
    const auto outside = dir.path() / "outside.txt";
    const auto status = run("echo x > " + outside.string(), {{}, {}, {}});
    EXPECT_NE(status.code, 0);
    EXPECT_FALSE(fs::exists(outside));
    // Only the loopback device exists in a fresh network namespace.
    run("cat /proc/net/dev", {{}, {}, {}});
    EXPECT_EQ(output_text().find("eth"), std::string::npos) << output_text();
    EXPECT_NE(output_text().find("lo:"), std::string::npos) << output_text();
}

TEST_F(sandbox_test, GradedTestsRunInsideIt) {
    grader::run_options options = graded_run_of({"FakeHost.Passes", "FakeHost.Last"});
    // The program's own folder is hidden too: the runner shows the program again.
    options.sandbox.hidden = {fs::path(FAKE_GRADED_TESTS).parent_path()};
    const auto run = grader::run_graded_tests(options);
    for (const auto& t : run.tests) EXPECT_EQ(t.status, grader::test_status::passed) << t.id;
}

TEST_F(sandbox_test, ACrashInsideIsNamedByItsSignal) {
    setenv("FAKE_CRASH", "1", 1);
    const auto run = grader::run_graded_tests(graded_run_of({"FakeHost.Crashes"}));
    unsetenv("FAKE_CRASH");
    ASSERT_EQ(run.tests.size(), 1u);
    EXPECT_EQ(run.tests[0].status, grader::test_status::crashed);
    ASSERT_FALSE(run.tests[0].messages.empty());
    EXPECT_NE(run.tests[0].messages[0].find("SIGSEGV"), std::string::npos) << run.tests[0].messages[0];
}

TEST_F(sandbox_test, ACourseUnderTmpIsKeptAndItsSecretsStayHidden) {
    // The test's folder is under the temp folder, which the sandbox makes private.
    const auto course = dir.path() / "course";
    fs::create_directories(course / "solutions");
    std::ofstream(course / "lesson.hpp") << "header\n";
    std::ofstream(course / "solutions" / "answer.cu") << "42\n";
    grader::sandbox_spec spec{{course / "solutions"}, {}, {}, {course}};
    EXPECT_EQ(run("cat " + (course / "lesson.hpp").string(), spec).code, 0) << output_text();
    EXPECT_NE(run("cat " + (course / "solutions" / "answer.cu").string(), spec).code, 0) << output_text();
}

// Nothing a sandboxed run writes outlives it, wherever it writes: the places
// programs share with the machine and with the next student are private.
TEST_F(sandbox_test, NothingWrittenInsideIsLeftOnTheMachine) {
    const std::string mark = "grader-sandbox-" + std::to_string(::getpid());
    const std::vector<fs::path> places{"/dev/shm", "/var/tmp", "/tmp", "/run"};
    std::string script = "set -e";
    for (const auto& place : places) script += "; echo x > " + (place / mark).string();
    script += "; echo written";
    const auto status = run(script, {{}, {}, {}});
    EXPECT_EQ(status.code, 0) << "each place is writable inside, privately: " << output_text();
    EXPECT_NE(output_text().find("written"), std::string::npos) << output_text();
    for (const auto& place : places) EXPECT_FALSE(fs::exists(place / mark)) << place / mark << " outlived the run";
}

TEST_F(sandbox_test, TheHomeFolderIsHiddenAndTheCourseInItIsKept) {
    // A home outside the temp folder, which is private anyway: in the build folder.
    const fs::path home = fs::path(GRADER_BUILD_DIR) / ("sandbox-home-" + std::to_string(::getpid()));
    if (home.string().rfind(fs::temp_directory_path().string(), 0) == 0)
        GTEST_SKIP() << "the build folder is under the temp folder, which the sandbox hides anyway";
    struct removed_after {
        fs::path path;
        ~removed_after() { fs::remove_all(path); }
    } cleanup{home};
    const auto course = home / "cuda-course";
    fs::create_directories(course);
    std::ofstream(home / "private.txt") << "secret\n";
    std::ofstream(course / "lesson.hpp") << "header\n";
    const char* old_home = std::getenv("HOME");
    const std::string saved = old_home ? old_home : "";
    setenv("HOME", home.c_str(), 1);
    const grader::sandbox_spec spec{{}, {}, {}, {course}};
    const auto seen_private = run("cat " + (home / "private.txt").string(), spec);
    const std::string private_output = output_text();
    const auto seen_course = run("cat " + (course / "lesson.hpp").string(), spec);
    if (old_home) setenv("HOME", saved.c_str(), 1); else unsetenv("HOME");
    EXPECT_NE(seen_private.code, 0) << private_output;
    EXPECT_EQ(private_output.find("secret"), std::string::npos) << private_output;
    EXPECT_EQ(seen_course.code, 0) << output_text();
}

TEST_F(sandbox_test, OnlyTheGpusDevicesAreShown) {
    // A device of this machine that is neither the GPU's nor one of the
    // usual few that bubblewrap makes itself: it must not be there inside.
    const std::vector<std::string> usual{"null", "zero", "full", "random", "urandom", "tty", "pts", "ptmx",
                                         "shm", "fd", "stdin", "stdout", "stderr", "core", "console", "mqueue"};
    std::optional<fs::path> other;
    for (const auto& entry : fs::directory_iterator("/dev")) {
        const std::string name = entry.path().filename().string();
        if (std::find(usual.begin(), usual.end(), name) == usual.end() && name.rfind("nvidia", 0) != 0 &&
            name != "dxg") {
            other = entry.path();
            break;
        }
    }
    if (!other) GTEST_SKIP() << "this machine's /dev holds no other device to look for";
    run("ls -a /dev", {{}, {}, {}});
    const std::string inside = output_text();
    EXPECT_EQ(inside.find("\n" + other->filename().string() + "\n"), std::string::npos) << *other << " is shown:\n"
                                                                                          << inside;
    for (const auto& gpu : grader::gpu_device_files("/dev"))
        EXPECT_NE(inside.find(gpu.filename().string()), std::string::npos) << gpu << " is missing inside";
}

TEST(SandboxDevices, TheGpusDeviceFilesAreNvidiasAndWsl2s) {
    course::temp_dir dev{"grader-fake-dev"};
    for (const char* name : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "dxg", "sda",
                             "kvm", "video0", "fuse"})
        std::ofstream(dev.path() / name);
    fs::create_directories(dev.path() / "nvidia-caps");
    std::vector<std::string> names;
    for (const auto& f : grader::gpu_device_files(dev.path())) names.push_back(f.filename().string());
    EXPECT_EQ(names, (std::vector<std::string>{"dxg", "nvidia-caps", "nvidia-uvm", "nvidia-uvm-tools", "nvidia0",
                                               "nvidia1", "nvidiactl"}));
}

TEST_F(sandbox_test, AProcessLeftBehindDiesWithTheRun) {
    // A program that starts a process of its own session, in the background,
    // and ends: the process must not outlive the sandbox. The program ends
    // only once that process runs `sleep` (at most a second), or the check
    // below could look before it has begun and find nothing.
    const std::string mark = std::to_string(4000 + ::getpid() % 1000) + ".25";
    const auto status = run("setsid sleep " + mark +
                                " > /dev/null 2>&1 & for i in $(seq 100); do grep -qs sleep /proc/$!/cmdline && "
                                "break; sleep 0.01; done; echo started",
                            {{}, {}, {}});
    EXPECT_EQ(status.code, 0) << output_text();
    auto still_running = [&] {
        for (const auto& entry : fs::directory_iterator("/proc")) {
            std::ifstream cmdline(entry.path() / "cmdline");
            std::string text((std::istreambuf_iterator<char>(cmdline)), {});
            std::replace(text.begin(), text.end(), '\0', ' ');
            if (text.rfind("sleep " + mark, 0) == 0) return true;
        }
        return false;
    };
    // bubblewrap returns as soon as the program ends; the rest of the PID
    // namespace goes when its first process, told by --die-with-parent, does:
    // allow it a moment, longer on a loaded machine.
    for (int i = 0; i < 250 && still_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(still_running()) << "sleep " << mark << " outlived the sandbox";
}

// Under a tool in the sandbox (a tool ends only once every process it
// follows has), a helper the program left running is found across the PID
// namespace and stopped once the test has ended and the grace is out: the
// tool ends by itself and writes its report, long before the limit.
TEST_F(sandbox_test, UnderAToolAHelperLeftRunningInsideIsStopped) {
    setenv("FAKE_LINGER", "1", 1);
    grader::run_options options = graded_run_of({"FakeHost.Passes"});
    options.per_test_limit = std::chrono::milliseconds(20000);
    const fs::path reports = dir.path() / "reports";
    fs::create_directories(reports);
    fs::create_directories(grader::evidence_dir(options));  // as an explanation's reruns have them
    fs::create_directories(grader::claims_dir(options));
    grader::test_processes processes(options, options.tests_program, "record", "tool", options.per_test_limit);
    processes.run_under({"/bin/sh", "-c", "\"$@\" | cat; echo whole > '" + (reports / "report").string() + "'",
                         "fake-tool"},
                        reports);
    processes.stop_leftovers_after(std::chrono::milliseconds(300));
    const auto started = std::chrono::steady_clock::now();
    const auto results = processes.run({"FakeHost.Passes"});
    const auto took = std::chrono::steady_clock::now() - started;
    unsetenv("FAKE_LINGER");
    ASSERT_TRUE(results.count("FakeHost.Passes"));
    EXPECT_EQ(results.at("FakeHost.Passes").status, grader::test_status::passed)
        << results.at("FakeHost.Passes").messages.front();
    EXPECT_LT(took, std::chrono::seconds(5)) << "the tool waited for the helper to the limit";
    EXPECT_TRUE(processes.ended_by_itself());
    EXPECT_EQ(grader::file_text(reports / "report"), "whole\n");
}

// A graded run's program may start threads, not processes
// (grader/threads_only, run/process_refusals.hpp): the fake program forks
// before main() and runs popen() during a test. Neither child runs, the
// report says what was tried, a thread it starts does run, and the tests
// keep their points.
TEST_F(sandbox_test, AProgramThatStartsAProcessIsRefusedAndTheRestIsGraded) {
#ifndef COURSE_THREADS_ONLY
    GTEST_SKIP() << "the grader was built without libseccomp (libseccomp-dev), so nothing is refused";
#else
    const fs::path marks = dir.path() / "marks";
    fs::create_directories(marks);
    setenv("FAKE_FORK", marks.c_str(), 1);
    grader::run_options options = graded_run_of({"FakeHost.Passes", "FakeHost.Last"});
    options.threads_only_launcher = COURSE_THREADS_ONLY;
    options.sandbox.writable = {marks};
    const auto run = grader::run_graded_tests(options);
    unsetenv("FAKE_FORK");

    for (const auto& t : run.tests) EXPECT_EQ(t.status, grader::test_status::passed) << t.id;
    EXPECT_FALSE(fs::exists(marks / "forked-child-ran")) << "the child forked before main() ran";
    EXPECT_FALSE(fs::exists(marks / "popen-child-ran")) << "popen's child ran";
    EXPECT_TRUE(fs::exists(marks / "thread-ran")) << "a thread may run";
    std::string notes;
    for (const auto& note : run.notes) notes += note + "\n";
    EXPECT_NE(notes.find("your code started a process (fork): graded runs allow threads only"), std::string::npos)
        << notes;
    EXPECT_NE(notes.find("your code started a process (vfork: posix_spawn, system() and popen() start one that "
                         "way): graded runs allow threads only"),
              std::string::npos)
        << notes;
#endif
}

// Where bubblewrap cannot run (a machine that forbids user namespaces), the
// search says why in bwrap's own words, and a graded run's refusal names the
// fixes (cli/run_command.cpp, batch/engine.hpp's batch_sandbox).
TEST(SandboxSearch, WhereBubblewrapCannotRunItSaysWhyAndTheRefusalSaysTheFixes) {
    course::temp_dir dir("grader-sandbox-search");
    const fs::path failing = dir / "bwrap";
    std::ofstream(failing) << "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n";
    fs::permissions(failing, fs::perms::owner_all);
    const fs::path empty = dir / "empty";
    fs::create_directories(empty);
    const auto saved = [](const char* name) -> std::optional<std::string> {
        const char* value = std::getenv(name);
        return value ? std::optional<std::string>(value) : std::nullopt;
    };
    const auto old_bwrap = saved("COURSE_BWRAP"), old_path = saved("PATH");
    setenv("COURSE_BWRAP", failing.c_str(), 1);
    setenv("PATH", empty.c_str(), 1);  // no other bwrap to fall back on
    const grader::bubblewrap_search found = grader::search_bubblewrap();
    unsetenv("COURSE_BWRAP");
    const grader::bubblewrap_search none = grader::search_bubblewrap();
    old_path ? setenv("PATH", old_path->c_str(), 1) : unsetenv("PATH");
    old_bwrap ? setenv("COURSE_BWRAP", old_bwrap->c_str(), 1) : unsetenv("COURSE_BWRAP");

    EXPECT_FALSE(found.bwrap);
    EXPECT_NE(found.problem.find(failing.string() + " failed (exit code 1: bwrap: setting up uid map: Permission denied)"),
              std::string::npos)
        << found.problem;
    EXPECT_FALSE(none.bwrap);
    EXPECT_EQ(none.problem, "bubblewrap (bwrap) is not installed: none on PATH");
    const std::string refusal = grader::sandbox_refusal(found.problem);
    for (const char* part : {"Permission denied", "nothing was graded", "apt-get install bubblewrap",
                             "kernel.unprivileged_userns_clone=1", "--no-sandbox", "runs with your rights"})
        EXPECT_NE(refusal.find(part), std::string::npos) << "missing \"" << part << "\" in: " << refusal;
}
