// Reading compute-sanitizer's reports into findings, the command line that
// makes them, and how the findings reach a test's messages.
//
// SAMPLES: PROVISIONAL (to be replaced by reports captured on the GPU).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>

#include "course/temp_dir.hpp"
#include "sanitizer.hpp"
#include "sanitizer_evidence.hpp"

namespace {

using grader::sanitizer_tool;

const char* const memcheck_out_of_bounds = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at lesson01::vecadd_kernel(course::device_span<const float>, course::device_span<const float>, course::device_span<float>)+0x80 in /work/exercises/01_vecadd/vecadd.cu:18
=========     by thread (1,0,0) in block (1,0,0)
=========     Address 0x7f1c2e000204 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f1c2e000000 of size 516 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f3c7e] in libcuda.so.1
=========
========= ERROR SUMMARY: 254 errors
========= Target application returned an error
)";

TEST(SanitizerReport, NamesAnOutOfBoundsAccessWithKernelLineThreadAndBlock) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::memcheck, memcheck_out_of_bounds);
    ASSERT_EQ(report.findings.size(), 1u);
    const auto& f = report.findings[0];
    EXPECT_EQ(f.kind, "out-of-bounds read of 4 bytes to global memory");
    EXPECT_EQ(f.kernel, "vecadd_kernel");
    EXPECT_EQ(f.location, "vecadd.cu:18");
    EXPECT_EQ(f.thread, "(1,0,0)");
    EXPECT_EQ(f.block, "(1,0,0)");
    EXPECT_EQ(f.address, "1 bytes after the nearest allocation of size 516 bytes");
    EXPECT_EQ(report.error_count, 254);
    EXPECT_TRUE(report.tool_errors.empty());
    EXPECT_EQ(grader::describe(f),
              "compute-sanitizer (memcheck): out-of-bounds read of 4 bytes to global memory in vecadd_kernel at "
              "vecadd.cu:18, thread (1,0,0) block (1,0,0); the address is 1 bytes after the nearest allocation of "
              "size 516 bytes");
}

// The format before CUDA 12: the location first, the kernel after it.
const char* const memcheck_older_format = R"(========= Invalid __global__ write of size 4
=========     at 0x00000070 in /home/user/memcheck_demo.cu:6:unaligned_kernel(void)
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x400100001 is misaligned
)";

TEST(SanitizerReport, ReadsTheOlderLocationFormatAndMisalignment) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::memcheck, memcheck_older_format);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind, "misaligned write of 4 bytes to global memory");
    EXPECT_EQ(report.findings[0].kernel, "unaligned_kernel");
    EXPECT_EQ(report.findings[0].location, "memcheck_demo.cu:6");
}

const char* const racecheck_hazard = R"(========= COMPUTE-SANITIZER
========= Error: Potential RAW hazard detected at __shared__ 0x84 in block (3,0,0) :
=========     Write Thread (33,0,0) at tiled_kernel(float *)+0x50 in /work/probe/probe.cu:13
=========     Read Thread (0,0,0) at tiled_kernel(float *)+0x90 in /work/probe/probe.cu:15
=========     Current Value : 33, Incoming Value : 0
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

TEST(SanitizerReport, NamesASharedMemoryHazardWithItsBlockAndThread) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::racecheck, racecheck_hazard);
    ASSERT_EQ(report.findings.size(), 1u);
    const auto& f = report.findings[0];
    EXPECT_EQ(f.kind, "race on shared memory (RAW hazard: read-after-write, no barrier between)");
    EXPECT_EQ(f.kernel, "tiled_kernel");
    EXPECT_EQ(f.location, "probe.cu:13");
    EXPECT_EQ(f.thread, "(33,0,0)");
    EXPECT_EQ(f.block, "(3,0,0)");
}

const char* const racecheck_summary = R"(========= Error: Race reported between Write access at tiled_kernel(float *)+0x50 in /work/probe/probe.cu:13
=========     and Read access at tiled_kernel(float *)+0x90 in /work/probe/probe.cu:15 [1020 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

TEST(SanitizerReport, ReadsTheRaceSummaryFormatToo) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::racecheck, racecheck_summary);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind,
              "race on shared memory between a write (probe.cu:13) and a read (probe.cu:15), no barrier between");
    EXPECT_EQ(report.findings[0].kernel, "tiled_kernel");
    EXPECT_TRUE(report.tool_errors.empty());
}

const char* const initcheck_uninitialised = R"(========= Uninitialized __global__ memory read of size 4 bytes
=========     at uninit_kernel(const float *, float *)+0x40 in /work/probe/probe.cu:18
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0e6a000000
)";

TEST(SanitizerReport, NamesAReadOfUninitialisedMemory) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::initcheck, initcheck_uninitialised);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind, "read of uninitialised global memory (4 bytes never written)");
    EXPECT_EQ(report.findings[0].location, "probe.cu:18");
}

const char* const synccheck_divergent = R"(========= Barrier error detected. Divergent thread(s) in block
=========     at divergent_kernel(float *)+0x60 in /work/probe/probe.cu:23
=========     by thread (16,0,0) in block (0,0,0)
)";

TEST(SanitizerReport, NamesABarrierNotEveryThreadReaches) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::synccheck, synccheck_divergent);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind,
              "barrier error: Divergent thread(s) in block: __syncthreads() not reached by every thread");
    EXPECT_EQ(report.findings[0].thread, "(16,0,0)");
}

TEST(SanitizerReport, AToolThatCannotWorkSaysSoAndFindsNothing) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::memcheck,
                                                       "========= COMPUTE-SANITIZER\n"
                                                       "========= Error: Device not supported\n"
                                                       "========= ERROR SUMMARY: 0 errors\n");
    EXPECT_TRUE(report.findings.empty());
    ASSERT_EQ(report.tool_errors.size(), 1u);
    EXPECT_EQ(report.tool_errors[0], "Error: Device not supported");
}

TEST(SanitizerReport, TheProgramsOwnOutputAndACleanRunFindNothing) {
    const auto report = grader::parse_sanitizer_report(
        sanitizer_tool::memcheck, "[ RUN      ] VecAdd.Large\nInvalid read of size 4 bytes\n"
                                  "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
    EXPECT_TRUE(report.findings.empty());
    EXPECT_EQ(report.error_count, 0);
    EXPECT_TRUE(report.tool_errors.empty());
}

TEST(SanitizerCommand, WritesItsReportToAFileAndChecksOnlyKernels) {
    const auto args = grader::sanitizer_command("/cuda/bin/compute-sanitizer", sanitizer_tool::memcheck, "/logs/r.txt");
    const std::vector<std::string> expected{"/cuda/bin/compute-sanitizer", "--tool", "memcheck",
                                            "--log-file", "/logs/r.txt", "--print-limit", "5",
                                            "--error-exitcode", "86", "--report-api-errors", "no"};
    EXPECT_EQ(args, expected);
    const auto race = grader::sanitizer_command("cs", sanitizer_tool::racecheck, "r.txt");
    EXPECT_NE(std::find(race.begin(), race.end(), "--racecheck-report"), race.end());
}

// The reruns, with a stand-in for the test program: each "run" writes the
// report the test says the tool would.
struct fake_sanitizer {
    fake_sanitizer() : dir("grader-sanitizer-test") {
        const auto tool = dir.path() / "compute-sanitizer";
        std::ofstream(tool) << "#!/bin/sh\n";
        setenv("COURSE_COMPUTE_SANITIZER", tool.c_str(), 1);
    }
    ~fake_sanitizer() { unsetenv("COURSE_COMPUTE_SANITIZER"); }
    course::temp_dir dir;
};

std::string arg_after(const std::vector<std::string>& args, const std::string& name) {
    const auto it = std::find(args.begin(), args.end(), name);
    return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

std::vector<grader::graded_test> lesson_tests() {
    std::vector<grader::graded_test> tests(4);
    tests[0].id = "VecAdd.Passes";
    tests[0].status = grader::test_status::passed;
    tests[1].id = "VecAdd.PartialLastBlock";
    tests[1].status = grader::test_status::failed;
    tests[1].messages = {"wrote past the end: 1 element(s) after the last one were changed"};
    tests[2].id = "VecAdd.Hangs";
    tests[2].status = grader::test_status::timed_out;
    tests[3].id = "VecAdd.Bandwidth";
    tests[3].status = grader::test_status::failed;
    tests[3].performance = true;
    return tests;
}

TEST(SanitizerEvidence, RerunsOnlyFailedOrCrashedCorrectnessTests) {
    auto tests = lesson_tests();
    EXPECT_EQ(grader::tests_to_sanitize(tests, false), std::vector<std::string>{"VecAdd.PartialLastBlock"});
    EXPECT_EQ(grader::tests_to_sanitize(tests, true),
              (std::vector<std::string>{"VecAdd.Passes", "VecAdd.PartialLastBlock"}));
    tests[1].gpu = false;  // a host test has no kernel to check
    EXPECT_TRUE(grader::tests_to_sanitize(tests, false).empty());
}

TEST(SanitizerEvidence, TheFindingLeadsAFailedTestsMessages) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    std::vector<std::string> tools_run;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, std::chrono::milliseconds) {
            EXPECT_EQ(id, "VecAdd.PartialLastBlock");
            tools_run.push_back(arg_after(command, "--tool"));
            std::ofstream(arg_after(command, "--log-file")) << memcheck_out_of_bounds;
        });
    EXPECT_EQ(tools_run, std::vector<std::string>{"memcheck"});  // it found something: no other tool runs
    ASSERT_EQ(tests[1].messages.size(), 2u);
    EXPECT_EQ(tests[1].messages[0].rfind("compute-sanitizer (memcheck): out-of-bounds read of 4 bytes", 0), 0u);
    EXPECT_NE(tests[1].messages[0].find("(254 errors in all; the first is shown)"), std::string::npos);
    EXPECT_EQ(tests[1].messages[1], "wrote past the end: 1 element(s) after the last one were changed");
    EXPECT_EQ(tests[1].status, grader::test_status::failed);
    EXPECT_TRUE(notes.empty());
}

TEST(SanitizerEvidence, WhenNoToolFindsAnythingNothingIsAdded) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    std::vector<std::string> tools_run;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, std::chrono::milliseconds) {
            tools_run.push_back(arg_after(command, "--tool"));
            std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
        });
    EXPECT_EQ(tools_run, (std::vector<std::string>{"memcheck", "racecheck", "synccheck", "initcheck"}));
    EXPECT_EQ(tests[1].messages.size(), 1u);
    EXPECT_TRUE(notes.empty());
}

TEST(SanitizerEvidence, APassStaysAPassAndTheBugIsNoted) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    grader::sanitizer_options options;
    options.every_test = true;
    const auto notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, std::chrono::milliseconds) {
            std::ofstream(arg_after(command, "--log-file")) << memcheck_out_of_bounds;
        });
    EXPECT_EQ(tests[0].status, grader::test_status::passed);
    ASSERT_EQ(tests[0].messages.size(), 1u);
    EXPECT_EQ(tests[0].messages[0].rfind("passed, but compute-sanitizer (memcheck)", 0), 0u);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0].rfind("VecAdd.Passes passed, but compute-sanitizer", 0), 0u);
    EXPECT_EQ(notes[1].rfind("--sanitize: compute-sanitizer checked 2 GPU correctness test(s)", 0), 0u);
}

TEST(SanitizerEvidence, AToolThatCannotWorkHereIsSaidOnceAndClaimsNothing) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    tests[0].status = grader::test_status::crashed;
    int runs = 0;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, std::chrono::milliseconds) {
            ++runs;
            std::ofstream(arg_after(command, "--log-file")) << "========= Error: Device not supported\n";
        });
    EXPECT_EQ(runs, 1);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("could not check the tests here (Error: Device not supported)"), std::string::npos);
    EXPECT_EQ(tests[1].messages.size(), 1u);
}

TEST(SanitizerEvidence, WhatTheBudgetLeavesUncheckedIsNamed) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    grader::sanitizer_options options;
    options.budget = std::chrono::seconds(3);  // less than one rerun is given
    const auto notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>&, std::chrono::milliseconds) { FAIL(); });
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "compute-sanitizer did not check VecAdd.PartialLastBlock (or not with every tool): the 3 s allowed "
                        "for its reruns were spent");
}

TEST(SanitizerEvidence, WithoutTheToolTheRunSaysHowToGetIt) {
    if (std::filesystem::exists("/usr/local/cuda/bin/compute-sanitizer")) GTEST_SKIP() << "the toolkit has it";
    setenv("COURSE_COMPUTE_SANITIZER", "/no/such/compute-sanitizer", 1);
    const std::string saved_path = getenv("PATH") ? getenv("PATH") : "";
    setenv("PATH", "/no/such/folder", 1);
    auto tests = lesson_tests();
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, "/tmp/unused",
        [&](const std::string&, const std::vector<std::string>&, std::chrono::milliseconds) { FAIL(); });
    setenv("PATH", saved_path.c_str(), 1);
    unsetenv("COURSE_COMPUTE_SANITIZER");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("install the CUDA toolkit's compute-sanitizer"), std::string::npos);
    EXPECT_EQ(tests[1].messages.size(), 1u);
}

}  // namespace
