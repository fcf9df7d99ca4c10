// A test stopped at its time limit is explained from how busy the GPU was
// just before the kill (run/time_limit.hpp). nvidia-smi is replaced here by
// a script on the PATH that answers as the real one does
// (--query-gpu=utilization.gpu --format=csv,noheader,nounits: " 37"; pmon:
// two header lines, then one line per process).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "course/temp_dir.hpp"
#include "run/runner.hpp"
#include "run/time_limit.hpp"
#include "system/process.hpp"

namespace grader {
namespace {

// nvidia-smi on the PATH for as long as this lives: it prints `answer` and
// exits with `code` (to `pmon`, it runs `pmon_script` instead), and writes
// its arguments to args.txt beside it.
class fake_nvidia_smi {
public:
    fake_nvidia_smi(const std::string& answer, int code = 0, const std::string& pmon_script = "exit 1")
        : dir_("grader-fake-smi") {
        const auto script = dir_ / "nvidia-smi";
        std::ofstream(script) << "#!/bin/sh\necho \"$@\" > '" << (dir_ / "args.txt").string()
                              << "'\nif [ \"$1\" = pmon ]; then\n" << pmon_script << "\nfi\nprintf '" << answer
                              << "'\nexit " << code << "\n";
        chmod(script.c_str(), 0755);
        const char* path = std::getenv("PATH");
        old_path_ = path ? path : "";
        setenv("PATH", (dir_.path().string() + ":" + old_path_).c_str(), 1);
    }
    ~fake_nvidia_smi() { setenv("PATH", old_path_.c_str(), 1); }
    fake_nvidia_smi(const fake_nvidia_smi&) = delete;
    fake_nvidia_smi& operator=(const fake_nvidia_smi&) = delete;
    std::string arguments() const { return file_text(dir_ / "args.txt"); }

private:
    course::temp_dir dir_;
    std::string old_path_;
};

}  // namespace

TEST(TimeLimit, ReadsHowBusyTheRunsGpuWas) {
    const fake_nvidia_smi smi(" 37\\n");
    EXPECT_EQ(gpu_busy_percent("00000000:19:00.0"), 37);
    EXPECT_EQ(smi.arguments(), "--query-gpu=utilization.gpu --format=csv,noheader,nounits -i 00000000:19:00.0\n");
}

TEST(TimeLimit, AnAnswerItCannotReadIsNoAnswer) {
    {
        const fake_nvidia_smi smi("[N/A]\\n");
        EXPECT_EQ(gpu_busy_percent("00000000:19:00.0"), std::nullopt);
    }
    {
        const fake_nvidia_smi smi("No devices were found\\n", 6);
        EXPECT_EQ(gpu_busy_percent("00000000:19:00.0"), std::nullopt);
    }
    {
        const fake_nvidia_smi smi("0\\n");
        EXPECT_EQ(gpu_busy_percent(""), std::nullopt);  // no GPU: nothing is asked
        EXPECT_EQ(smi.arguments(), "");
    }
}

// What nvidia-smi 580 prints for `pmon -c 1 -s u`: processes 4242 and 4243
// are the test's, 77 another run's.
const char* pmon_answer =
    "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command \n"
    "# Idx           #    C/G      %      %      %      %      %      %    name \n"
    "    0       4242     C     61      9      -      -      -      -    lesson01_tests \n"
    "    0       4243     C      -      -      -      -      -      -    lesson01_tests \n"
    "    0         77     C     38      4      -      -      -      -    lesson01_tests \n";

TEST(TimeLimit, ReadsHowBusyTheTestsOwnProcessesKeptAGpu) {
    const fake_nvidia_smi smi("0\\n", 0, std::string("printf '%s' '") + pmon_answer + "'; exit 0");
    EXPECT_EQ(processes_gpu_busy_percent("00000000:19:00.0", {4242, 4243}), 61);
    EXPECT_EQ(smi.arguments(), "pmon -c 1 -s u -i 00000000:19:00.0\n");
    EXPECT_EQ(processes_gpu_busy_percent("00000000:19:00.0", {4243}), 0);  // listed, no sample: idle
    EXPECT_EQ(processes_gpu_busy_percent("00000000:19:00.0", {77, 4242}), 99);
    // Not listed (another PID namespace, or no context): not known.
    EXPECT_EQ(processes_gpu_busy_percent("00000000:19:00.0", {5}), std::nullopt);
}

TEST(TimeLimit, APmonThatFailsOrSaysNothingIsNoAnswer) {
    {
        const fake_nvidia_smi smi("0\\n", 0, "echo 'Failed to initialize NVML'; exit 9");
        EXPECT_EQ(processes_gpu_busy_percent("00000000:19:00.0", {4242}), std::nullopt);
    }
    {
        const fake_nvidia_smi smi("0\\n", 0, "echo 'garbage without a header'; echo '0 4242 C 50'; exit 0");
        EXPECT_EQ(processes_gpu_busy_percent("00000000:19:00.0", {4242}), std::nullopt);
    }
}

TEST(TimeLimit, EachReadingIsSaidForWhatItShows) {
    const std::string idle = what_the_stopped_test_was_doing({0, false, std::nullopt});
    EXPECT_NE(idle.find("no kernel was stuck: the time went on the host"), std::string::npos) << idle;
    EXPECT_EQ(idle.find("A kernel that never ends"), std::string::npos) << idle;
    // An idle GPU is idle for every run that shares it.
    EXPECT_EQ(what_the_stopped_test_was_doing({0, true, std::nullopt}), idle);

    const std::string busy = what_the_stopped_test_was_doing({100, false, std::nullopt});
    EXPECT_NE(busy.find("The GPU was running a kernel up to the limit (nvidia-smi: 100% busy"), std::string::npos);
    EXPECT_NE(busy.find("A kernel that never ends looks like this"), std::string::npos);

    const std::string shared = what_the_stopped_test_was_doing({100, true, std::nullopt});
    EXPECT_NE(shared.find("other runs of the batch share it"), std::string::npos) << shared;
    EXPECT_EQ(shared.find("running a kernel up to the limit"), std::string::npos) << shared;

    // Shared, but the test's own processes were read.
    const std::string own_busy = what_the_stopped_test_was_doing({100, true, 61});
    EXPECT_NE(own_busy.find("The GPU was running a kernel up to the limit, and it was the test's (nvidia-smi "
                            "pmon: its program had 61% of the GPU"),
              std::string::npos)
        << own_busy;
    const std::string own_idle = what_the_stopped_test_was_doing({100, true, 0});
    EXPECT_NE(own_idle.find("The test's program ran no kernel during the last moments before the limit"),
              std::string::npos)
        << own_idle;
    EXPECT_NE(own_idle.find("the time went on the host"), std::string::npos) << own_idle;

    const std::string unknown = what_the_stopped_test_was_doing({std::nullopt, false, std::nullopt});
    EXPECT_NE(unknown.find("Either its code on the host took that long"), std::string::npos) << unknown;
}

// Runs the fake test program's hung test (it sleeps on the host) with a
// 1.5 s limit, on a GPU shared through `gate` if one is given, and returns
// the sentence that explains the stop.
std::string explanation_of_a_hung_test(gpu_gate* gate = nullptr) {
    setenv("FAKE_HANG", "1", 1);
    const course::temp_dir logs("grader-time-limit-test");
    run_options options;
    options.tests_program = FAKE_GRADED_TESTS;
    options.judge_program = FAKE_GRADED_JUDGE;
    options.log_dir = logs.path();
    options.seed = 7;
    options.per_test_limit = std::chrono::milliseconds(1500);
    options.only = {"FakeHost.Hangs"};
    options.gpu_pci_bus_id = "00000000:19:00.0";
    options.gate = gate;
    const auto tests = run_graded_tests(options).tests;
    unsetenv("FAKE_HANG");
    if (tests.size() != 1 || tests[0].status != test_status::timed_out || tests[0].messages.size() != 2) {
        ADD_FAILURE() << "the hung test was not stopped at its time limit with two messages";
        return {};
    }
    return tests[0].messages[1];
}

TEST(TimeLimit, AHungTestIsExplainedFromTheReadingTakenBeforeTheKill) {
    // The fake test program hangs on the host (sleep): the GPU reads idle.
    const fake_nvidia_smi smi("0\\n");
    const std::string why = explanation_of_a_hung_test();
    EXPECT_NE(why.find("(nvidia-smi: 0% busy), so no kernel was stuck"), std::string::npos) << why;
}

TEST(TimeLimit, OnASharedGpuTheTestsOwnProcessesAreAsked) {
    // The GPU reads busy (other runs of the batch), and pmon lists every
    // process on the machine at 7%: the hung test's program among them.
    const fake_nvidia_smi smi(
        "93\\n", 0,
        "echo '# gpu pid type sm mem command'; echo '# Idx # C/G % % name';"
        " for p in /proc/[0-9]*; do echo \"0 ${p#/proc/} C 7 0 x\"; done; exit 0");
    gpu_gate gate;
    const std::string why = explanation_of_a_hung_test(&gate);
    EXPECT_NE(why.find("running a kernel up to the limit, and it was the test's"), std::string::npos) << why;
}

}  // namespace grader
