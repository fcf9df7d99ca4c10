// A test stopped at its time limit is explained from how busy the GPU was
// just before the kill (run/time_limit.hpp). nvidia-smi is replaced here by
// a script on the PATH that answers as the real one does
// (--query-gpu=utilization.gpu --format=csv,noheader,nounits: " 37").
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
// exits with `code`, and writes its arguments to args.txt beside it.
class fake_nvidia_smi {
public:
    fake_nvidia_smi(const std::string& answer, int code = 0) : dir_("grader-fake-smi") {
        const auto script = dir_ / "nvidia-smi";
        std::ofstream(script) << "#!/bin/sh\necho \"$@\" > '" << (dir_ / "args.txt").string() << "'\nprintf '"
                              << answer << "'\nexit " << code << "\n";
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

TEST(TimeLimit, EachReadingIsSaidForWhatItShows) {
    const std::string idle = what_the_stopped_test_was_doing(0, false);
    EXPECT_NE(idle.find("no kernel was stuck: the time went on the host"), std::string::npos) << idle;
    EXPECT_EQ(idle.find("A kernel that never ends"), std::string::npos) << idle;
    // An idle GPU is idle for every run that shares it.
    EXPECT_EQ(what_the_stopped_test_was_doing(0, true), idle);

    const std::string busy = what_the_stopped_test_was_doing(100, false);
    EXPECT_NE(busy.find("The GPU was running a kernel up to the limit (nvidia-smi: 100% busy"), std::string::npos);
    EXPECT_NE(busy.find("A kernel that never ends looks like this"), std::string::npos);

    const std::string shared = what_the_stopped_test_was_doing(100, true);
    EXPECT_NE(shared.find("other runs of the batch share it"), std::string::npos) << shared;
    EXPECT_EQ(shared.find("running a kernel up to the limit"), std::string::npos) << shared;

    const std::string unknown = what_the_stopped_test_was_doing(std::nullopt, false);
    EXPECT_NE(unknown.find("Either its code on the host took that long"), std::string::npos) << unknown;
}

TEST(TimeLimit, AHungTestIsExplainedFromTheReadingTakenBeforeTheKill) {
    // The fake test program hangs on the host (sleep): the GPU reads idle.
    const fake_nvidia_smi smi("0\\n");
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
    const auto tests = run_graded_tests(options).tests;
    unsetenv("FAKE_HANG");
    ASSERT_EQ(tests.size(), 1u);
    EXPECT_EQ(tests[0].status, test_status::timed_out);
    ASSERT_EQ(tests[0].messages.size(), 2u);
    EXPECT_NE(tests[0].messages[1].find("(nvidia-smi: 0% busy), so no kernel was stuck"), std::string::npos)
        << tests[0].messages[1];
}

}  // namespace grader
