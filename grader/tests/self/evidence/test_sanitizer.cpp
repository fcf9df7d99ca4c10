// Reading compute-sanitizer's reports into findings, the command line that
// makes them, and how the findings reach a test's messages.
//
// The reports are compute-sanitizer's own (2025.3.1, CUDA 13.0), captured on
// an H200 with --print-limit 3 from a probe program built with -lineinfo, one
// planted bug per tool: a kernel that reads past the end of a 129-element
// input with 256 threads, a misaligned store, a shared-memory tile read with
// no __syncthreads() after it was stored, a read of never-written memory, and
// a __syncthreads() only 16 threads of a warp reach. Only the repeated errors
// past the first are cut. The older format is cuda-memcheck's (the tool
// compute-sanitizer replaced), as a log of it shows its lines.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <future>
#include <thread>

#include "course/temp_dir.hpp"
#include "evidence/sanitizer.hpp"
#include "evidence/sanitizer_evidence.hpp"
#include "fake_cuda_tool.hpp"

namespace {

using grader::sanitizer_tool;

const char* const memcheck_out_of_bounds = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at lesson::vecadd_kernel(lesson::span<const float>, lesson::span<float>)+0xd0 in probe.cu:9
=========     by thread (96,0,0) in block (1,0,0)
=========     Access to 0x7f774c800380 is out of bounds
=========     and is 128 bytes before the nearest allocation at 0x7f774c800400 of size 16,384 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8de0] in probe
========= 
========= Target application returned an error
========= ERROR SUMMARY: 96 errors
========= ERROR SUMMARY: 93 errors were not printed. Use --print-limit option to adjust the number of printed errors
)";

TEST(SanitizerReport, NamesAnOutOfBoundsAccessWithKernelLineThreadAndBlock) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::memcheck, memcheck_out_of_bounds);
    ASSERT_EQ(report.findings.size(), 1u);
    const auto& f = report.findings[0];
    EXPECT_EQ(f.kind, "out-of-bounds read of 4 bytes to global memory");
    EXPECT_EQ(f.kernel, "vecadd_kernel");
    EXPECT_EQ(f.location, "probe.cu:9");
    EXPECT_EQ(f.thread, "(96,0,0)");
    EXPECT_EQ(f.block, "(1,0,0)");
    EXPECT_EQ(f.address, "128 bytes before the nearest allocation of size 16,384 bytes");
    EXPECT_EQ(f.address_value, std::uintptr_t{0x7f774c800380});
    EXPECT_EQ(report.error_count, 96);  // not the 93 left unprinted
    EXPECT_TRUE(report.tool_errors.empty());
    EXPECT_EQ(grader::describe(f),
              "compute-sanitizer (memcheck): out-of-bounds read of 4 bytes to global memory in vecadd_kernel at "
              "probe.cu:9, thread (96,0,0) block (1,0,0); the address is 128 bytes before the nearest allocation of "
              "size 16,384 bytes");
}

const char* const memcheck_misaligned = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at lesson::misaligned_kernel(float *)+0x70 in probe.cu:28
=========     by thread (0,0,0) in block (0,0,0)
=========     Access to 0x7fbb86800402 is misaligned
=========     and is inside the nearest allocation at 0x7fbb86800400 of size 16,384 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x901c] in probe
========= 
========= Target application returned an error
========= ERROR SUMMARY: 32 errors
========= ERROR SUMMARY: 29 errors were not printed. Use --print-limit option to adjust the number of printed errors
)";

TEST(SanitizerReport, NamesAMisalignedAccess) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::memcheck, memcheck_misaligned);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind, "misaligned write of 4 bytes to global memory");
    EXPECT_EQ(report.findings[0].kernel, "misaligned_kernel");
    EXPECT_EQ(report.findings[0].address, "inside the nearest allocation of size 16,384 bytes");
}

// cuda-memcheck's layout: the location first, the kernel (with its return type) after it.
const char* const memcheck_older_format = R"(========= Invalid __global__ read of size 8
=========     at 0x000000c8 in /home/ubuntu/Test0001/Debug/../src/my_helper.cuh:75:void vector_projection<double>(double*, int)
=========     by thread (9,0,0) in block (0,0,0)
=========     Address 0x000370e8 is out of bounds
)";

TEST(SanitizerReport, ReadsTheOlderLocationFormat) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::memcheck, memcheck_older_format);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind, "out-of-bounds read of 8 bytes to global memory");
    EXPECT_EQ(report.findings[0].kernel, "vector_projection<double>");
    EXPECT_EQ(report.findings[0].location, "my_helper.cuh:75");
    EXPECT_EQ(report.findings[0].thread, "(9,0,0)");
}

// --racecheck-report hazard (not asked for by the grader, which asks for the
// analysis below: a report of each hazard costs the tool too much).
const char* const racecheck_hazard = R"(========= COMPUTE-SANITIZER
========= Error: Potential RAW hazard detected at __shared__ 0x780 in block (0,0,0) :
=========     Write Thread (224,0,0) at lesson::tiled_kernel(float *)+0xb0 in probe.cu:13
=========     Read Thread (187,0,0) at lesson::tiled_kernel(float *)+0xc0 in probe.cu:15
=========     Current Value : 0
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: lesson::tiled_kernel(float*) [0x94f7] in probe
=========         Host Frame: main [0x8e68] in probe
========= 
========= RACECHECK SUMMARY: 3 hazards displayed (4096 errors, 0 warnings)
)";

TEST(SanitizerReport, NamesASharedMemoryHazardWithBothThreadsAndTheBlock) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::racecheck, racecheck_hazard);
    ASSERT_EQ(report.findings.size(), 1u);
    const auto& f = report.findings[0];
    EXPECT_EQ(f.kind, "race on shared memory (RAW hazard: read-after-write with no barrier between)");
    EXPECT_EQ(f.kernel, "tiled_kernel");
    EXPECT_EQ(f.location, "probe.cu:13");
    EXPECT_EQ(f.thread, "(224,0,0)");
    EXPECT_EQ(f.block, "(0,0,0)");
    EXPECT_EQ(f.other_access, "read by thread (187,0,0) at probe.cu:15");
    EXPECT_EQ(report.error_count, 4096);
    EXPECT_TRUE(report.tool_errors.empty());
    EXPECT_EQ(grader::describe(f),
              "compute-sanitizer (racecheck): race on shared memory (RAW hazard: read-after-write with no barrier "
              "between) in tiled_kernel at probe.cu:13, thread (224,0,0) block (0,0,0); read by thread (187,0,0) at "
              "probe.cu:15");
}

// racecheck's default report (--racecheck-report analysis), which the grader asks for.
const char* const racecheck_summary = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at lesson::tiled_kernel(float *)+0xb0 in probe.cu:13
=========     and Read access at lesson::tiled_kernel(float *)+0xc0 in probe.cu:15 [4096 hazards]
========= 
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

TEST(SanitizerReport, ReadsTheRaceAnalysisFormatToo) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::racecheck, racecheck_summary);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind, "race on shared memory");
    EXPECT_EQ(report.findings[0].kernel, "tiled_kernel");
    EXPECT_EQ(report.error_count, 1);
    EXPECT_TRUE(report.tool_errors.empty());
    EXPECT_EQ(grader::describe(report.findings[0]),
              "compute-sanitizer (racecheck): race on shared memory in tiled_kernel; a write at probe.cu:13 and a "
              "read at probe.cu:15 with no barrier between them");
}

const char* const initcheck_uninitialised = R"(========= COMPUTE-SANITIZER
========= Uninitialized __global__ memory read of size 4 bytes
=========     at lesson::uninit_kernel(const float *, float *)+0x60 in probe.cu:18
=========     by thread (32,0,0) in block (0,0,0)
=========     Address 0x7f5308804480
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8f0c] in probe
========= 
========= ERROR SUMMARY: 256 errors
========= ERROR SUMMARY: 253 errors were not printed. Use --print-limit option to adjust the number of printed errors
)";

TEST(SanitizerReport, NamesAReadOfUninitialisedMemory) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::initcheck, initcheck_uninitialised);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind, "read of uninitialised global memory (4 bytes never written)");
    EXPECT_EQ(report.findings[0].location, "probe.cu:18");
    EXPECT_EQ(report.findings[0].thread, "(32,0,0)");
}

const char* const synccheck_divergent = R"(========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in warp.
=========     at lesson::divergent_kernel(float *)+0xc0 in probe.cu:23
=========     by thread (0,0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8f94] in probe
========= 
========= Target application returned an error
========= ERROR SUMMARY: 16 errors
========= ERROR SUMMARY: 13 errors were not printed. Use --print-limit option to adjust the number of printed errors
)";

TEST(SanitizerReport, NamesABarrierNotEveryThreadReaches) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::synccheck, synccheck_divergent);
    ASSERT_EQ(report.findings.size(), 1u);
    EXPECT_EQ(report.findings[0].kind,
              "barrier error: divergent thread(s) in warp: __syncthreads() not reached by every thread");
    EXPECT_EQ(report.findings[0].location, "probe.cu:23");
    EXPECT_EQ(report.error_count, 16);
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

TEST(SanitizerReport, AProgramThatEndedAbnormallyIsNotATool) {
    // What compute-sanitizer ends with when the program it ran crashed (a
    // segmentation fault in host code): the tool worked.
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::memcheck,
                                                       "========= COMPUTE-SANITIZER\n"
                                                       "========= Error: process didn't terminate successfully\n"
                                                       "========= Target application returned an error\n"
                                                       "========= ERROR SUMMARY: 0 errors\n");
    EXPECT_TRUE(report.findings.empty());
    EXPECT_TRUE(report.tool_errors.empty());
    ASSERT_EQ(report.program_ended.size(), 1u);
    EXPECT_EQ(report.program_ended[0], "Error: process didn't terminate successfully");
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
    // racecheck's analysis report: each race once, not each hazard.
    const auto race = grader::sanitizer_command("cs", sanitizer_tool::racecheck, "r.txt");
    const auto report_mode = std::find(race.begin(), race.end(), "--racecheck-report");
    ASSERT_NE(report_mode, race.end());
    ASSERT_NE(report_mode + 1, race.end());
    EXPECT_EQ(*(report_mode + 1), "analysis");
}

// Given kernels, the tool checks those alone, each named whole (kne=).
TEST(SanitizerCommand, ChecksOnlyTheKernelsItIsGiven) {
    const auto race = grader::sanitizer_command("cs", sanitizer_tool::racecheck, "r.txt",
                                                {"_Z19matmul_tiled_kernelPKfS0_Pfiii", "_Z4fillPfi"});
    const std::vector<std::string> tail(race.end() - 4, race.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"--kernel-name", "kne=_Z19matmul_tiled_kernelPKfS0_Pfiii",
                                              "--kernel-name", "kne=_Z4fillPfi"}));
    const auto all = grader::sanitizer_command("cs", sanitizer_tool::racecheck, "r.txt");
    EXPECT_EQ(std::find(all.begin(), all.end(), "--kernel-name"), all.end());
}

// The reruns, with a stand-in for the test program: each "run" writes the
// report the test says the tool would.
struct fake_sanitizer : grader::testing::fake_cuda_tool {
    fake_sanitizer() : fake_cuda_tool("COURSE_COMPUTE_SANITIZER", "compute-sanitizer") {}
};
using grader::testing::arg_after;

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
    tests[1].gpu = true;  // nor has an unfinished part
    tests[1].messages = {"not implemented yet: lesson01::vecadd in exercises/01_vecadd/vecadd.cu"};
    EXPECT_TRUE(grader::tests_to_sanitize(tests, false).empty());
}

TEST(SanitizerEvidence, TheFindingLeadsAFailedTestsMessages) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    std::vector<std::string> tools_run;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            EXPECT_EQ(id, "VecAdd.PartialLastBlock");
            tools_run.push_back(arg_after(command, "--tool"));
            std::ofstream(arg_after(command, "--log-file")) << memcheck_out_of_bounds;
            return true;
        });
    EXPECT_EQ(tools_run, std::vector<std::string>{"memcheck"});  // it found something: no other tool runs
    ASSERT_EQ(tests[1].messages.size(), 2u);
    EXPECT_EQ(tests[1].messages[0].rfind("compute-sanitizer (memcheck): out-of-bounds read of 4 bytes", 0), 0u);
    EXPECT_NE(tests[1].messages[0].find("(96 errors in all; the first is shown)"), std::string::npos);
    EXPECT_EQ(tests[1].messages[1], "wrote past the end: 1 element(s) after the last one were changed");
    EXPECT_EQ(tests[1].status, grader::test_status::failed);
    EXPECT_TRUE(notes.empty());
}

// A read past the end of a guard-paged input, as the rerun's test program
// and memcheck would report it: the map names the input, and the address
// becomes the element it would be.
TEST(SanitizerEvidence, AnAddressInAnInputsGuardIsNamedAsAnElement) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    const auto reports = fake.dir.path() / "reports";
    grader::add_sanitizer_evidence(
        tests, {}, reports,
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            // a: 129 floats at 0x7f0000000000, its guard 12 bytes after its end.
            std::ofstream(grader::input_map_file(reports, id))
                << R"({"name":"a","first":139637976727552,"element_bytes":4,"rows":1,"cols":129,"pitch":129,)"
                << R"("matrix":false,"guard":[139637976728080,139637978825232]})" << "\n";
            std::ofstream(arg_after(command, "--log-file")) << R"(========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at lesson01::vecadd_kernel(course::device_span<const float>, course::device_span<const float>, course::device_span<float>)+0x1a0 in vecadd.cu:27
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000000400 is out of bounds
=========     and is 1,024 bytes after the nearest allocation at 0x7f0000000000 of size 2,097,152 bytes
========= 
========= ERROR SUMMARY: 129 errors
)";
            return true;
        });
    ASSERT_EQ(tests[1].messages.size(), 2u);
    EXPECT_EQ(tests[1].messages[0],
              "compute-sanitizer (memcheck): out-of-bounds read of 4 bytes to global memory in vecadd_kernel at "
              "vecadd.cu:27, thread (0,0,0) block (0,0,0); the address is a[256], past the end of input a (129 "
              "elements: a[0] to a[128]); unmapped memory starts 12 bytes after a's end (129 errors in all; the "
              "first is shown)");
}

TEST(SanitizerEvidence, WhenNoToolFindsAnythingNothingIsAdded) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    std::vector<std::string> tools_run;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            tools_run.push_back(arg_after(command, "--tool"));
            std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
            return true;
        });
    EXPECT_EQ(tools_run, (std::vector<std::string>{"memcheck", "racecheck", "synccheck", "initcheck"}));
    EXPECT_EQ(tests[1].messages.size(), 1u);
    EXPECT_TRUE(notes.empty());
}

// A rerun stopped at its limit (run_under says the tool did not end by
// itself): an error it printed before is still real and leads the message;
// finding nothing before the stop shows nothing, and is said so.
TEST(SanitizerEvidence, ARerunCutShortShowsOnlyWhatItFound) {
    fake_sanitizer fake;
    for (const bool printed_an_error : {false, true}) {
        SCOPED_TRACE(printed_an_error ? "an error printed before the stop" : "nothing printed before the stop");
        auto tests = lesson_tests();
        std::vector<std::string> tools_run;
        const auto notes = grader::add_sanitizer_evidence(
            tests, {}, fake.dir.path() / "reports",
            [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&,
                std::chrono::milliseconds) {
                const std::string tool = arg_after(command, "--tool");
                tools_run.push_back(tool);
                std::ofstream report(arg_after(command, "--log-file"));
                if (tool != "memcheck") {
                    report << "========= ERROR SUMMARY: 0 errors\n";
                    return true;
                }
                report << "========= COMPUTE-SANITIZER\n";
                if (printed_an_error) report << memcheck_out_of_bounds;
                return false;
            });
        if (printed_an_error) {
            EXPECT_EQ(tools_run, std::vector<std::string>{"memcheck"});
            ASSERT_EQ(tests[1].messages.size(), 2u);
            EXPECT_EQ(tests[1].messages[0].rfind("compute-sanitizer (memcheck): ", 0), 0u) << tests[1].messages[0];
            EXPECT_TRUE(notes.empty());
        } else {
            EXPECT_EQ(tools_run, (std::vector<std::string>{"memcheck", "racecheck", "synccheck", "initcheck"}));
            EXPECT_EQ(tests[1].messages.size(), 1u);
            EXPECT_EQ(notes, std::vector<std::string>{"compute-sanitizer (memcheck) did not finish "
                                                      "VecAdd.PartialLastBlock within its time limit, so that rerun "
                                                      "shows nothing"});
        }
    }
}

TEST(SanitizerEvidence, APassStaysAPassAndTheBugIsNoted) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    grader::sanitizer_options options;
    options.every_test = true;
    const auto notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            std::ofstream(arg_after(command, "--log-file")) << memcheck_out_of_bounds;
            return true;
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
        [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            ++runs;
            std::ofstream(arg_after(command, "--log-file")) << "========= Error: Device not supported\n";
            return true;
        });
    EXPECT_EQ(runs, 1);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("could not check the tests here (Error: Device not supported)"), std::string::npos);
    EXPECT_EQ(tests[1].messages.size(), 1u);
}

TEST(SanitizerEvidence, AProgramThatCrashedUnderTheToolIsSaidSoAndTheOtherTestsAreStillChecked) {
    // lesson01's mutant host_crash, in an H200 class: its crashed test's
    // rerun ended "Error: process didn't terminate successfully", which the
    // report called compute-sanitizer unable to check anything here.
    fake_sanitizer fake;
    auto tests = lesson_tests();
    tests[0].status = grader::test_status::crashed;
    std::vector<std::string> rerun;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&,
            std::chrono::milliseconds) {
            rerun.push_back(id);
            std::ofstream(arg_after(command, "--log-file"))
                << (id == "VecAdd.Passes" ? "========= Error: process didn't terminate successfully\n"
                                            "========= ERROR SUMMARY: 0 errors\n"
                                          : memcheck_out_of_bounds);
            return true;
        });
    EXPECT_NE(std::find(rerun.begin(), rerun.end(), "VecAdd.PartialLastBlock"), rerun.end());
    for (const auto& note : notes) EXPECT_EQ(note.find("could not check"), std::string::npos) << note;
    const auto said = std::find_if(notes.begin(), notes.end(), [](const std::string& note) {
        return note.find("found no error in VecAdd.Passes before the program ended under it (\"Error: process "
                         "didn't terminate successfully\")") != std::string::npos;
    });
    ASSERT_NE(said, notes.end());
    EXPECT_EQ(said->rfind("compute-sanitizer (memcheck", 0), 0u) << *said;
    ASSERT_FALSE(tests[1].messages.empty());
    EXPECT_EQ(tests[1].messages[0].rfind("compute-sanitizer (memcheck)", 0), 0u) << tests[1].messages[0];
}

TEST(SanitizerEvidence, WhatTheBudgetLeavesUncheckedIsNamed) {
    fake_sanitizer fake;
    auto tests = lesson_tests();
    grader::sanitizer_options options;
    options.budget = std::chrono::seconds(3);  // less than one rerun is given
    const auto notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>&, const std::filesystem::path&, std::chrono::milliseconds) {
            ADD_FAILURE() << "ran a rerun";
            return false;
        });
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
        [&](const std::string&, const std::vector<std::string>&, const std::filesystem::path&, std::chrono::milliseconds) {
            ADD_FAILURE() << "ran a rerun";
            return false;
        });
    setenv("PATH", saved_path.c_str(), 1);
    unsetenv("COURSE_COMPUTE_SANITIZER");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("install the CUDA toolkit's compute-sanitizer"), std::string::npos);
    EXPECT_EQ(tests[1].messages.size(), 1u);
}

std::vector<grader::graded_test> failing_tests(int count) {
    std::vector<grader::graded_test> tests(count);
    for (int i = 0; i < count; ++i) {
        tests[i].id = "VecAdd.Fails" + std::to_string(i);
        tests[i].status = grader::test_status::failed;
        tests[i].messages = {"wrong"};
    }
    return tests;
}

TEST(SanitizerEvidence, AToolThatFoundNothingInTwoFailuresIsNotRunOnTheRest) {
    fake_sanitizer fake;
    auto tests = failing_tests(4);
    std::vector<std::string> rerun;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            if (rerun.empty() || rerun.back() != id) rerun.push_back(id);
            std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
            return true;
        });
    EXPECT_EQ(rerun, (std::vector<std::string>{"VecAdd.Fails0", "VecAdd.Fails1"}));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("compute-sanitizer: memcheck, racecheck, synccheck and initcheck found nothing in "
                            "VecAdd.Fails0 and VecAdd.Fails1; so VecAdd.Fails2 and VecAdd.Fails3 were not rerun"),
              std::string::npos)
        << notes[0];
    for (const auto& t : tests) EXPECT_EQ(t.messages, std::vector<std::string>{"wrong"}) << t.id;
}

TEST(SanitizerEvidence, TheQuickestFailuresAreRerunFirst) {
    fake_sanitizer fake;
    auto tests = failing_tests(3);
    tests[0].ms = 900;  // a large input: its reruns are the slow ones
    tests[1].ms = 2;
    tests[2].ms = 40;
    std::vector<std::string> rerun;
    grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            if (rerun.empty() || rerun.back() != id) rerun.push_back(id);
            std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
            return true;
        });
    EXPECT_EQ(rerun, (std::vector<std::string>{"VecAdd.Fails1", "VecAdd.Fails2"}));
}

// memcheck finds nothing in the first failure (a stray read inside its
// array's slack) and an error in the second: the rest of VecAdd is not
// rerun and is told where it was seen; a failing test of another suite is.
TEST(SanitizerEvidence, OnceAToolFoundAnErrorTheRestOfTheSuiteIsToldWhereItWasSeen) {
    fake_sanitizer fake;
    auto tests = failing_tests(4);
    tests[3].id = "Affine.Fails3";
    std::vector<std::string> rerun;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            rerun.push_back(id + " " + arg_after(command, "--tool"));
            std::ofstream(arg_after(command, "--log-file"))
                << (id == "VecAdd.Fails0" ? "========= ERROR SUMMARY: 0 errors\n" : memcheck_out_of_bounds);
            return true;
        });
    EXPECT_EQ(rerun, (std::vector<std::string>{"VecAdd.Fails0 memcheck", "VecAdd.Fails0 racecheck",
                                               "VecAdd.Fails0 synccheck", "VecAdd.Fails0 initcheck",
                                               "VecAdd.Fails1 memcheck", "Affine.Fails3 memcheck"}));
    EXPECT_EQ(tests[0].messages, std::vector<std::string>{"wrong"});
    EXPECT_EQ(tests[1].messages[0].rfind("compute-sanitizer (memcheck): out-of-bounds read", 0), 0u);
    EXPECT_EQ(tests[3].messages[0].rfind("compute-sanitizer (memcheck): out-of-bounds read", 0), 0u);
    ASSERT_EQ(tests[2].messages.size(), 2u);
    EXPECT_EQ(tests[2].messages[0].rfind("seen in VecAdd.Fails1, which failed too (this test was not rerun under "
                                         "compute-sanitizer): compute-sanitizer (memcheck): out-of-bounds read",
                                         0),
              0u)
        << tests[2].messages[0];
    EXPECT_EQ(tests[2].messages[1], "wrong");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("memcheck found an error in VecAdd.Fails1; memcheck found an error in Affine.Fails3; so "
                            "VecAdd.Fails2 was not rerun"),
              std::string::npos)
        << notes[0];
}

// A missing barrier fails only the larger tests of a kernel, but racecheck
// sees the hazard in any: it looks at the quickest passing test of the suite
// first, and both failures are told where it was seen.
TEST(SanitizerEvidence, RacecheckLooksAtAQuickerPassingTestOfTheSameSuiteFirst) {
    fake_sanitizer fake;
    std::vector<grader::graded_test> tests(5);
    const char* ids[] = {"Naive.Tiny", "Tiled.Tiny", "Tiled.OddShape", "Tiled.Medium", "Tiled.Large"};
    const double ms[] = {1, 6, 4, 300, 900};
    for (int i = 0; i < 5; ++i) {
        tests[i].id = ids[i];
        tests[i].ms = ms[i];
        tests[i].status = i < 3 ? grader::test_status::passed : grader::test_status::failed;
        if (i >= 3) tests[i].messages = {"wrong"};
    }
    std::vector<std::string> rerun;
    const auto notes = grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            const std::string tool = arg_after(command, "--tool");
            rerun.push_back(id + " " + tool);
            std::ofstream(arg_after(command, "--log-file"))
                << (tool == "racecheck" ? racecheck_hazard : "========= ERROR SUMMARY: 0 errors\n");
            return true;
        });
    EXPECT_EQ(rerun, (std::vector<std::string>{"Tiled.Medium memcheck", "Tiled.OddShape racecheck"}));
    ASSERT_EQ(tests[3].messages.size(), 2u);
    EXPECT_EQ(tests[3].messages[0].rfind("seen in Tiled.OddShape, a quicker test of the same functions that passed "
                                         "(a hazard need not change every run's output), rerun under compute-sanitizer "
                                         "in place of the failing ones: compute-sanitizer (racecheck)",
                                         0),
              0u)
        << tests[3].messages[0];
    EXPECT_EQ(tests[4].messages[0], tests[3].messages[0]);
    EXPECT_EQ(tests[1].messages, std::vector<std::string>{}) << "a pass stays as it was";
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("racecheck found an error in Tiled.OddShape (rerun for Tiled.Medium)"), std::string::npos)
        << notes[0];
}

// Where the quicker test shows nothing, the failing test itself is rerun;
// and the quicker test is not rerun again for the next failing test.
TEST(SanitizerEvidence, WhereTheQuickerTestShowsNoHazardTheFailingTestIsRerun) {
    fake_sanitizer fake;
    std::vector<grader::graded_test> tests(3);
    const char* ids[] = {"Tiled.Tiny", "Tiled.Medium", "Tiled.Large"};
    const double ms[] = {5, 300, 900};
    for (int i = 0; i < 3; ++i) {
        tests[i].id = ids[i];
        tests[i].ms = ms[i];
        tests[i].status = i == 0 ? grader::test_status::passed : grader::test_status::failed;
        if (i > 0) tests[i].messages = {"wrong"};
    }
    std::vector<std::string> rerun;
    grader::add_sanitizer_evidence(
        tests, {}, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            const std::string tool = arg_after(command, "--tool");
            rerun.push_back(id + " " + tool);
            std::ofstream(arg_after(command, "--log-file"))
                << (tool == "racecheck" && id == "Tiled.Large" ? racecheck_hazard
                                                               : "========= ERROR SUMMARY: 0 errors\n");
            return true;
        });
    EXPECT_EQ(rerun, (std::vector<std::string>{"Tiled.Medium memcheck", "Tiled.Tiny racecheck",
                                               "Tiled.Medium racecheck", "Tiled.Tiny synccheck",
                                               "Tiled.Medium synccheck", "Tiled.Medium initcheck",
                                               "Tiled.Large memcheck", "Tiled.Large racecheck"}));
    EXPECT_EQ(tests[2].messages[0].rfind("compute-sanitizer (racecheck)", 0), 0u) << tests[2].messages[0];
    EXPECT_EQ(tests[1].messages, std::vector<std::string>{"wrong"});
}

// racecheck and synccheck check the program's own kernels alone (not those
// of a library it calls); memcheck and initcheck check every kernel: a wrong
// leading dimension handed to cuBLAS shows as its kernel reading out of
// bounds. The kernels are asked for once.
TEST(SanitizerEvidence, HazardToolsCheckTheProgramsOwnKernelsAlone) {
    fake_sanitizer fake;
    auto tests = failing_tests(1);
    grader::sanitizer_options options;
    int asked = 0;
    options.own_kernels = [&] {
        ++asked;
        return std::vector<std::string>{"_Z6vecaddPKfS0_Pfi"};
    };
    std::vector<std::string> filtered;
    const auto notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            const bool only = std::find(command.begin(), command.end(), "kne=_Z6vecaddPKfS0_Pfi") != command.end();
            filtered.push_back(arg_after(command, "--tool") + (only ? " own kernels" : " every kernel"));
            std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
            return true;
        });
    EXPECT_EQ(filtered, (std::vector<std::string>{"memcheck every kernel", "racecheck own kernels",
                                                  "synccheck own kernels", "initcheck every kernel"}));
    EXPECT_EQ(asked, 1);
    const bool said = std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n.find("racecheck and synccheck checked only the 1 kernel(s) compiled into your code") !=
               std::string::npos;
    });
    EXPECT_TRUE(said) << "the report does not say which kernels the hazard tools looked at";
}

// One failing test explained by a compute-sanitizer that, given the
// program's kernels to check, writes `filtered_report` (nullptr: no report);
// without them it finds nothing. Returns each run's tool and filter, and the notes.
struct filtered_runs {
    std::vector<std::string> runs, notes;
};
filtered_runs explain_with_a_filter_that_writes(const char* filtered_report) {
    fake_sanitizer fake;
    auto tests = failing_tests(1);
    grader::sanitizer_options options;
    options.own_kernels = [] { return std::vector<std::string>{"_Z6vecaddPKfS0_Pfi"}; };
    filtered_runs seen;
    seen.notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            const bool only = std::find(command.begin(), command.end(), "--kernel-name") != command.end();
            seen.runs.push_back(arg_after(command, "--tool") + (only ? " own kernels" : " every kernel"));
            const char* report = only ? filtered_report : "========= ERROR SUMMARY: 0 errors\n";
            if (report) std::ofstream(arg_after(command, "--log-file")) << report;
            return true;
        });
    return seen;
}

// racecheck is given the kernels to check, is run again without them, and
// no tool after it is given them.
const std::vector<std::string> racecheck_redone_without_the_filter{
    "memcheck every kernel", "racecheck own kernels", "racecheck every kernel", "synccheck every kernel",
    "initcheck every kernel"};

// A compute-sanitizer that writes no report when given kernels to check
// (one that does not know --kernel-name) is run again without them, and is
// not given them again.
TEST(SanitizerEvidence, AToolThatRefusesTheKernelFilterRunsWithoutIt) {
    const filtered_runs seen = explain_with_a_filter_that_writes(nullptr);
    EXPECT_EQ(seen.runs, racecheck_redone_without_the_filter);
    for (const auto& n : seen.notes) {
        EXPECT_EQ(n.find("wrote no report"), std::string::npos) << n;
        EXPECT_EQ(n.find("checked only"), std::string::npos) << n;
    }
}

// What CUDA 13.0's racecheck wrote over cuBLAS's TF32 kernels when given kernels to check.
const char* const racecheck_internal_error = R"(========= COMPUTE-SANITIZER
========= Internal Sanitizer Error: The Sanitizer failed to handle a hardware exception.
========= 
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

TEST(SanitizerReport, TellsTheToolsOwnFailureFromAFinding) {
    const auto report = grader::parse_sanitizer_report(sanitizer_tool::racecheck, racecheck_internal_error);
    EXPECT_TRUE(report.findings.empty());
    EXPECT_TRUE(report.tool_errors.empty());
    ASSERT_EQ(report.internal_errors.size(), 1u);
    EXPECT_EQ(report.internal_errors[0],
              "Internal Sanitizer Error: The Sanitizer failed to handle a hardware exception.");
}

// A compute-sanitizer that fails inside itself when given kernels to check
// is run again without them, and is not given them again: its failure is no
// finding.
TEST(SanitizerEvidence, AToolThatFailsInsideItselfWithTheKernelFilterRunsWithoutIt) {
    const filtered_runs seen = explain_with_a_filter_that_writes(racecheck_internal_error);
    EXPECT_EQ(seen.runs, racecheck_redone_without_the_filter);
    for (const auto& n : seen.notes) {
        EXPECT_EQ(n.find("could not read"), std::string::npos) << n;
        EXPECT_EQ(n.find("failed inside itself"), std::string::npos) << n;
    }
}

// Where it fails inside itself without the filter too, the report says so,
// and the rerun counts as no check: not as "found nothing".
TEST(SanitizerEvidence, AToolsFailureInsideItselfIsSaidAndFindsNothing) {
    fake_sanitizer fake;
    auto tests = failing_tests(1);
    grader::sanitizer_options options;
    std::vector<std::string> runs;
    const auto notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            const std::string tool = arg_after(command, "--tool");
            runs.push_back(tool);
            std::ofstream(arg_after(command, "--log-file"))
                << (tool == "racecheck" ? racecheck_internal_error : "========= ERROR SUMMARY: 0 errors\n");
            return true;
        });
    EXPECT_EQ(runs, (std::vector<std::string>{"memcheck", "racecheck", "synccheck", "initcheck"}));
    const bool said = std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n.find("compute-sanitizer (racecheck) failed inside itself in VecAdd.Fails0") != std::string::npos &&
               n.find("checked nothing") != std::string::npos;
    });
    EXPECT_TRUE(said);
    for (const auto& n : notes) {
        EXPECT_EQ(n.find("could not read"), std::string::npos) << n;
        EXPECT_EQ(n.find("racecheck found nothing"), std::string::npos) << n;
    }
    EXPECT_EQ(tests[0].messages.front().rfind("compute-sanitizer", 0), std::string::npos);
}

// A failure its test explained by a cause none of the tools looks at (the
// stream its work ran on) is rerun under none, and the report says why;
// with --sanitize it is rerun like every test.
TEST(SanitizerEvidence, AFailureExplainedBeyondTheToolsIsNotRerun) {
    fake_sanitizer fake;
    auto tests = failing_tests(2);
    tests[0].explained_beyond_the_tools = true;
    std::vector<std::string> rerun;
    auto run_under = [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&,
                         std::chrono::milliseconds) {
        rerun.push_back(id + " " + arg_after(command, "--tool"));
        std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
        return true;
    };
    grader::sanitizer_options options;
    const auto notes = grader::add_sanitizer_evidence(tests, options, fake.dir.path() / "reports", run_under);
    for (const auto& r : rerun) EXPECT_EQ(r.rfind("VecAdd.Fails0", 0), std::string::npos) << r;
    EXPECT_FALSE(rerun.empty()) << "the other failure was not rerun";
    const bool said = std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n == "compute-sanitizer did not rerun VecAdd.Fails0: the test named the cause from what it saw, and it "
                    "is not one the tools look for (they check memory accesses, races, barriers and initialisation)";
    });
    EXPECT_TRUE(said);
    EXPECT_EQ(grader::tests_to_sanitize(tests, false), std::vector<std::string>{"VecAdd.Fails1"});
    EXPECT_EQ(grader::tests_to_sanitize(tests, true), (std::vector<std::string>{"VecAdd.Fails0", "VecAdd.Fails1"}));
}

// --sanitize checks every test with every tool it needs: nothing is spared.
TEST(SanitizerEvidence, SanitizingEveryTestSparesNothing) {
    fake_sanitizer fake;
    auto tests = failing_tests(2);
    grader::sanitizer_options options;
    options.every_test = true;
    std::vector<std::string> rerun;
    grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            rerun.push_back(id + " " + arg_after(command, "--tool"));
            std::ofstream(arg_after(command, "--log-file")) << memcheck_out_of_bounds;
            return true;
        });
    EXPECT_EQ(rerun, (std::vector<std::string>{"VecAdd.Fails0 memcheck", "VecAdd.Fails1 memcheck"}));
    EXPECT_EQ(tests[1].messages[0].rfind("compute-sanitizer (memcheck)", 0), 0u);
}

// Where the program's machine code shows racecheck or synccheck have
// nothing to look at (kernel_instructions.hpp), they are not run, and a
// note says why; where it cannot be told, every tool runs as before.
std::vector<std::string> tools_run_with(std::optional<grader::kernel_instructions> kernels, bool every_test,
                                        std::vector<std::string>* notes = nullptr) {
    fake_sanitizer fake;
    auto tests = failing_tests(2);
    grader::sanitizer_options options;
    options.every_test = every_test;
    options.wait_for_kernels = std::chrono::minutes(1);  // the answer is always there in time
    int reads = 0;
    options.read_kernels = [&](const std::atomic<bool>&) {
        ++reads;
        return kernels;
    };
    std::vector<std::string> rerun;
    const auto said = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            rerun.push_back(id + " " + arg_after(command, "--tool"));
            std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
            return true;
        });
    EXPECT_EQ(reads, every_test ? 0 : 1) << "the program is read once, and not for --sanitize";
    if (notes) *notes = said;
    return rerun;
}

TEST(SanitizerEvidence, AToolWithNothingToLookAtInTheProgramIsNotRun) {
    std::vector<std::string> notes;
    EXPECT_EQ(tools_run_with(grader::kernel_instructions{2, false, false}, false, &notes),
              (std::vector<std::string>{"VecAdd.Fails0 memcheck", "VecAdd.Fails0 initcheck", "VecAdd.Fails1 memcheck",
                                        "VecAdd.Fails1 initcheck"}));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0],
              "compute-sanitizer: racecheck and synccheck were not run: the test program's kernels have no "
              "instruction that may touch shared memory, all racecheck watches, and no barrier or warp-synchronous "
              "instruction, all synccheck checks (cuobjdump -sass)");

    EXPECT_EQ(tools_run_with(grader::kernel_instructions{1, true, false}, false, &notes),
              (std::vector<std::string>{"VecAdd.Fails0 memcheck", "VecAdd.Fails0 racecheck", "VecAdd.Fails0 initcheck",
                                        "VecAdd.Fails1 memcheck", "VecAdd.Fails1 racecheck",
                                        "VecAdd.Fails1 initcheck"}));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("synccheck was not run: the test program's kernels have no barrier"), std::string::npos)
        << notes[0];

    // With reruns spared for the other reasons too, one note says it all.
    {
        fake_sanitizer fake;
        auto tests = failing_tests(3);
        grader::sanitizer_options options;
        options.wait_for_kernels = std::chrono::minutes(1);
        options.read_kernels = [](const std::atomic<bool>&) {
            return std::optional<grader::kernel_instructions>(grader::kernel_instructions{2, false, false});
        };
        const auto said = grader::add_sanitizer_evidence(
            tests, options, fake.dir.path() / "reports",
            [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
                std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
                return true;
            });
        ASSERT_EQ(said.size(), 1u);
        EXPECT_NE(said[0].find("compute-sanitizer: memcheck and initcheck found nothing in VecAdd.Fails0 and "
                               "VecAdd.Fails1; so VecAdd.Fails2 was not rerun under every tool"),
                  std::string::npos)
            << said[0];
        EXPECT_NE(said[0].find("rerun: most failures of one submission have one cause); racecheck and synccheck "
                               "were not run: the test program's kernels have no instruction"),
                  std::string::npos)
            << said[0];
    }

    EXPECT_EQ(tools_run_with(grader::kernel_instructions{1, true, true}, false, &notes).size(), 8u);
    EXPECT_TRUE(notes.empty());
    EXPECT_EQ(tools_run_with(std::nullopt, false, &notes).size(), 8u) << "unknown: every tool runs";
    EXPECT_TRUE(notes.empty());
    EXPECT_EQ(tools_run_with(grader::kernel_instructions{2, false, false}, true).size(), 8u)
        << "--sanitize runs every tool";
}

// The answer may come late (lesson07's listing took 3.4 s): the tools run
// meanwhile, and the listing is given up on when the explanation ends.
TEST(SanitizerEvidence, AnAnswerThatComesLateSparesOnlyTheRerunsAfterItAndIsGivenUpOnAtTheEnd) {
    fake_sanitizer fake;
    auto tests = failing_tests(2);
    grader::sanitizer_options options;
    options.wait_for_kernels = std::chrono::milliseconds(0);
    std::promise<void> first_racecheck_ran, answering;
    auto ran = first_racecheck_ran.get_future();
    auto answered = answering.get_future();
    options.read_kernels = [&](const std::atomic<bool>&) {
        ran.wait();  // comes once racecheck has run on the first test
        answering.set_value();
        return std::optional<grader::kernel_instructions>(grader::kernel_instructions{2, false, false});
    };
    std::vector<std::string> rerun;
    std::vector<std::string> notes = grader::add_sanitizer_evidence(
        tests, options, fake.dir.path() / "reports",
        [&](const std::string& id, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            const std::string tool = arg_after(command, "--tool");
            rerun.push_back(id + " " + tool);
            std::ofstream(arg_after(command, "--log-file")) << "========= ERROR SUMMARY: 0 errors\n";
            if (tool == "racecheck") {
                first_racecheck_ran.set_value();
                answered.wait();
                std::this_thread::sleep_for(std::chrono::milliseconds(100));  // it has returned by the next tool
            }
            return true;
        });
    EXPECT_EQ(rerun, (std::vector<std::string>{"VecAdd.Fails0 memcheck", "VecAdd.Fails0 racecheck",
                                               "VecAdd.Fails0 initcheck", "VecAdd.Fails1 memcheck",
                                               "VecAdd.Fails1 initcheck"}));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0].rfind("compute-sanitizer: racecheck and synccheck were not run (or not again): the test "
                             "program's kernels have no instruction",
                             0),
              0u)
        << notes[0];

    // memcheck finds the error at once: the reading, still under way, is given up on.
    auto more = failing_tests(1);
    std::atomic<bool> told_to_stop{false};
    options.read_kernels = [&](const std::atomic<bool>& give_up) {
        while (!give_up) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        told_to_stop = true;
        return std::optional<grader::kernel_instructions>();
    };
    grader::add_sanitizer_evidence(
        more, options, fake.dir.path() / "reports",
        [&](const std::string&, const std::vector<std::string>& command, const std::filesystem::path&, std::chrono::milliseconds) {
            std::ofstream(arg_after(command, "--log-file")) << memcheck_out_of_bounds;
            return true;
        });
    EXPECT_TRUE(told_to_stop);
}

}  // namespace
