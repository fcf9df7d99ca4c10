// Reading Nsight Compute's metrics into a profile, the causes the profile
// names for a slow test, and how they reach the test's messages.
//
// The profiles in grader/tests/fixtures/ncu are ncu's own (2025.3.1, CUDA
// 13.0), written by `grader run` on an H200 with profile_command's arguments,
// of the course's speed tests: lesson01's known-wrong index_transposed
// (VecAdd.Bandwidth), lesson07's solution, tiled_b_tile_column_major
// (MatmulPerf.TiledVsTextbook) and register_blocked_acc_in_local_memory
// (MatmulPerf.RegisterBlockedVsCublas), lesson06's sum and lesson03's saxpy
// (compiled at run time by NVRTC). Two were taken earlier, outside the
// grader, before smsp__inst_executed.sum joined the metrics, so they lack it
// (as any profile may lack a metric): lesson01's solution, and the
// register-blocked mutant's test run whole, cuBLAS's kernel included.
// They ship in the student edition, so what would describe the reference's
// design is the skeleton's instead: every program is lessonNN_exercise_tests
// under build/bin, every kernel has the skeleton's name and parameters, and
// lesson01's solution profile is of one element a thread (its grid, request
// counts and waves as that kernel's would be; the figures the tests read
// are ncu's).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>

#include "evidence/kernel_metrics.hpp"
#include "evidence/profile_evidence.hpp"
#include "report/kernel_table.hpp"
#include "fake_cuda_tool.hpp"
#include "system/process.hpp"

namespace {

using grader::kernel_measure;

std::string fixture(const std::string& name) {
    return grader::file_text(std::filesystem::path(GRADER_FIXTURES) / "ncu" / (name + ".csv"));
}

const std::string naive = "_ZN8lesson0719matmul_naive_kernelEN6course14device_span_2dIKfEES3_NS1_IfEE";
const std::string tiled = "_ZN8lesson0719matmul_tiled_kernelEN6course14device_span_2dIKfEES3_NS1_IfEE";
const std::string blocked =
    "_ZN8lesson0730matmul_register_blocked_kernelEN6course14device_span_2dIKfEES3_NS1_IfEE";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(KernelMetrics, ReadsOneMeasurePerKernelLaunch) {
    const auto kernels = grader::parse_kernel_metrics(fixture("vecadd_solution"));
    ASSERT_EQ(kernels.size(), 1u);
    const kernel_measure& k = kernels[0];
    EXPECT_EQ(k.kernel, "lesson01::vecadd_kernel");
    EXPECT_EQ(k.block, "(256, 1, 1)");
    EXPECT_EQ(k.grid, "(524288, 1, 1)");
    EXPECT_DOUBLE_EQ(k.time_ns, 364736);
    EXPECT_DOUBLE_EQ(k.dram_pct, 90.83);
    EXPECT_DOUBLE_EQ(k.load_sector_use_pct, 100);
    EXPECT_DOUBLE_EQ(k.store_sector_use_pct, 100);
    EXPECT_LT(k.shared_conflict_pct, 0) << "no shared memory: no figure, not 0";
    EXPECT_DOUBLE_EQ(k.theoretical_occupancy_pct, 100);
    EXPECT_EQ(k.occupancy_limit, "") << "nothing limits a full occupancy";
    EXPECT_EQ(k.registers_per_thread, 24);
    EXPECT_DOUBLE_EQ(k.local_instructions, 0);
    EXPECT_LT(k.instructions, 0) << "a metric the profile lacks is unknown";
}

TEST(KernelMetrics, TheSolutionsShowNoCause) {
    for (const char* name : {"vecadd_solution", "matmul_solution_tiled"}) {
        auto kernels = grader::parse_kernel_metrics(fixture(name));
        grader::attribute_kernels(kernels, {{naive, "matmul_naive.cu"}, {tiled, "matmul_tiled.cu"}}, {});
        for (auto& k : kernels) k.origin = "yours";
        EXPECT_TRUE(grader::explain_slow_kernels(kernels).empty()) << name;
        EXPECT_TRUE(contains(grader::profile_message(kernels, {}), "none of the usual causes stands out")) << name;
    }
}

TEST(KernelMetrics, ATransposedIndexIsNamedUncoalesced) {
    auto kernels = grader::parse_kernel_metrics(fixture("vecadd_index_transposed"));
    grader::attribute_kernels(kernels, {{kernels.at(0).mangled, "vecadd.cu"}}, {});
    const auto findings = grader::explain_slow_kernels(kernels);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kernel, "lesson01::vecadd_kernel");
    EXPECT_TRUE(contains(findings[0].evidence, "loads and stores use 12% of each 32-byte sector")) << findings[0].evidence;
    EXPECT_TRUE(contains(findings[0].evidence, "(4 of 32 bytes)")) << findings[0].evidence;
    EXPECT_TRUE(contains(findings[0].evidence, "not coalesced"));
    EXPECT_TRUE(contains(findings[0].change, "consecutive threads of a warp touch consecutive elements"));
    const std::string message = grader::profile_message(kernels, findings);
    EXPECT_EQ(message.rfind("Nsight Compute: lesson01::vecadd_kernel: its global loads and stores", 0), 0u) << message;
}

TEST(KernelMetrics, ATransposedTileIsNamedBankConflictsInTheTiledKernelOnly) {
    auto kernels = grader::parse_kernel_metrics(fixture("matmul_tiled_bank_conflicts"));
    ASSERT_EQ(kernels.size(), 2u);
    grader::attribute_kernels(kernels, {{naive, "matmul_naive.cu"}, {tiled, "matmul_tiled.cu"}}, {});
    EXPECT_EQ(kernels[0].origin, "yours");
    // 469,822,169 + 260,751,315 conflicts in 671,148,761 + 277,528,531 wavefronts.
    EXPECT_NEAR(kernels[1].shared_conflict_pct, 77.0, 0.1);
    const auto findings = grader::explain_slow_kernels(kernels);
    ASSERT_EQ(findings.size(), 1u) << "the naive kernel (82.5% of each sector used) is not blamed";
    EXPECT_EQ(findings[0].kernel, "lesson07::matmul_tiled_kernel");
    EXPECT_TRUE(contains(findings[0].evidence, "77% of its shared-memory wavefronts are replays caused by bank conflicts "
                                               "(about 4-way on average)"))
        << findings[0].evidence;
    EXPECT_TRUE(contains(findings[0].change, "pad each row by one element"));
}

TEST(KernelMetrics, LocalMemoryIsNamedWithItsShareOfTheInstructions) {
    auto kernels = grader::parse_kernel_metrics(fixture("matmul_register_blocked_spills"));
    ASSERT_EQ(kernels.size(), 1u);
    grader::attribute_kernels(kernels, {{blocked, "matmul_register_blocked.cu"}}, {});
    const auto findings = grader::explain_slow_kernels(kernels);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_TRUE(contains(findings[0].evidence, "26% of its instructions load or store local memory: registers spilled "
                                               "to local memory"))
        << findings[0].evidence;
}

TEST(KernelMetrics, ALibrarysKernelIsNotJudged) {
    auto kernels = grader::parse_kernel_metrics(fixture("matmul_register_blocked_spills_and_cublas"));
    ASSERT_EQ(kernels.size(), 2u);
    grader::attribute_kernels(kernels, {{blocked, "matmul_register_blocked.cu"}}, {});
    EXPECT_EQ(kernels[0].kernel, "lesson07::matmul_register_blocked_kernel");
    EXPECT_EQ(kernels[1].kernel, "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>");
    EXPECT_EQ(kernels[1].origin, "library");
    EXPECT_DOUBLE_EQ(kernels[0].local_instructions, 100696064.0 + 75530240.0);
    const auto findings = grader::explain_slow_kernels(kernels);
    ASSERT_EQ(findings.size(), 1u) << "cuBLAS's kernel (12.5% occupancy, by design) is not the student's";
    EXPECT_EQ(findings[0].kernel, "lesson07::matmul_register_blocked_kernel");
    EXPECT_TRUE(contains(findings[0].evidence, "registers spilled to local memory")) << findings[0].evidence;
    // With the instruction count, the share is what counts.
    kernels[0].instructions = kernels[0].local_instructions * 10;
    EXPECT_TRUE(contains(grader::explain_slow_kernels(kernels).at(0).evidence, "10% of its instructions"));
    kernels[0].instructions = kernels[0].local_instructions * 1000;
    const auto without = grader::explain_slow_kernels(kernels);
    EXPECT_TRUE(without.empty() || !contains(without[0].evidence, "local memory")) << "0.1% of the instructions is no cause";
}

TEST(KernelMetrics, WithNoKernelOfTheStudentsTheMessageSaysWhatRan) {
    auto kernels = grader::parse_kernel_metrics(fixture("matmul_register_blocked_spills_and_cublas"));
    grader::attribute_kernels(kernels, {{naive, "matmul_naive.cu"}}, {{blocked, "test.cpp"}});
    EXPECT_EQ(kernels[0].origin, "test");
    EXPECT_EQ(grader::profile_message(kernels, grader::explain_slow_kernels(kernels)),
              "Nsight Compute saw no kernel compiled into your code run during this test, only "
              "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>: a library's kernels, or kernels compiled "
              "at run time");
    EXPECT_TRUE(contains(grader::profile_message({}, {}), "saw no kernel run during this test"));
}

TEST(KernelMetrics, KernelsOfALibraryWithNoneCompiledInAreJudgedAsTheStudents) {
    // Lesson 3 compiles its kernel at run time (NVRTC): the library lists none.
    auto saxpy = grader::parse_kernel_metrics(fixture("saxpy_nvrtc_solution"));
    ASSERT_EQ(saxpy.size(), 1u);
    EXPECT_EQ(saxpy[0].kernel, "saxpy");
    grader::attribute_kernels(saxpy, {}, {});
    EXPECT_EQ(saxpy[0].origin, "");
    EXPECT_TRUE(contains(grader::profile_message(saxpy, {}), "saxpy: ")) << "judged, and nothing found";
    auto kernels = grader::parse_kernel_metrics(fixture("vecadd_index_transposed"));
    grader::attribute_kernels(kernels, {}, {});
    EXPECT_EQ(grader::explain_slow_kernels(kernels).size(), 1u);
}

TEST(KernelMetrics, AFewScatteredStoresAreNoCause) {
    // A reduction stores one float per block: 12% of that sector is used,
    // but those stores are a sliver of the kernel's accesses.
    auto kernels = grader::parse_kernel_metrics(fixture("reduce_sum_solution"));
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_NEAR(kernels[0].store_sector_use_pct, 12.5, 0.01);
    for (auto& k : kernels) k.origin = "yours";
    EXPECT_TRUE(grader::explain_slow_kernels(kernels).empty());
    kernels[0].store_requests = kernels[0].load_requests;  // as many stores as loads: that would count
    EXPECT_TRUE(contains(grader::explain_slow_kernels(kernels).at(0).evidence, "its global stores use 12%"));
}

TEST(KernelMetrics, AnIdleGpuWithFewWarpsNamesWhatLimitsThem) {
    kernel_measure k;
    k.kernel = "k";
    k.origin = "yours";
    k.dram_pct = 12;
    k.sm_pct = 9;
    k.waves = 4;
    k.block = "(32, 1, 1)";
    k.achieved_occupancy_pct = 20;
    k.theoretical_occupancy_pct = 25;
    k.occupancy_limit = "blocks per SM";
    auto findings = grader::explain_slow_kernels({k});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_TRUE(contains(findings[0].evidence, "only 20% of the warps an SM can hold are active (at most 25%, limited by "
                                               "blocks per SM)"))
        << findings[0].evidence;
    EXPECT_TRUE(contains(findings[0].change, "use larger blocks (it runs (32, 1, 1)"));
    k.waves = 0.48;
    k.grid = "(16, 16, 1)";
    findings = grader::explain_slow_kernels({k});
    EXPECT_TRUE(contains(findings.at(0).evidence, "fills only 48% of what the GPU's SMs can run at once"));
    k.sm_pct = 70;  // a busy kernel: few warps are not its problem
    EXPECT_TRUE(grader::explain_slow_kernels({k}).empty());
}

TEST(KernelMetrics, NamesAreDemangledWithoutTheirParameters) {
    EXPECT_EQ(grader::short_kernel_name("_Z6reduceILi256EEvPKfPf"), "reduce<256>");
    EXPECT_EQ(grader::short_kernel_name("_Z10own_kernelPfi"), "own_kernel");
    EXPECT_EQ(grader::short_kernel_name("saxpy"), "saxpy") << "an extern \"C\" kernel (NVRTC) has no mangling";
}

TEST(KernelMetrics, TheCommandProfilesEachLaunchShapeOnceWithEveryMetric) {
    const auto args = grader::profile_command("/cuda/bin/ncu", "/logs/t.csv");
    EXPECT_EQ(args.front(), "/cuda/bin/ncu");
    const auto at = [&](const std::string& name) { return grader::testing::arg_after(args, name); };
    EXPECT_EQ(at("--filter-mode"), "per-launch-config");
    EXPECT_EQ(at("--launch-count"), "1");
    EXPECT_EQ(at("--log-file"), "/logs/t.csv");
    for (const auto& metric : grader::profile_metric_names()) EXPECT_TRUE(contains(at("--metrics"), metric)) << metric;
    EXPECT_EQ(std::find(args.begin(), args.end(), "--clock-control"), args.end()) << "clocks as ncu sets them";
}

TEST(KernelMetrics, TheTableHasALinePerKernelAndTheOccupancyLimit) {
    auto kernels = grader::parse_kernel_metrics(fixture("matmul_register_blocked_spills_and_cublas"));
    grader::attribute_kernels(kernels, {{blocked, "matmul_register_blocked.cu"}}, {});
    const auto table = grader::profile_table(kernels);
    ASSERT_EQ(table.size(), 5u);  // header, then each kernel and its occupancy limit
    EXPECT_TRUE(contains(table[1], "lesson07::matmul_register_blocked_kernel"));
    EXPECT_TRUE(contains(table[1], "10.41 ms"));
    EXPECT_TRUE(contains(table[2], "occupancy limited by registers per thread")) << table[2];
    EXPECT_TRUE(contains(table[3], "(library)"));
}

// The profiles, with a stand-in for ncu and the test program: each "run"
// writes the profile the test says ncu would.
struct fake_ncu : grader::testing::fake_cuda_tool {
    fake_ncu() : fake_cuda_tool("COURSE_NCU", "ncu") {}
};
using grader::testing::arg_after;

std::vector<grader::graded_test> speed_tests() {
    std::vector<grader::graded_test> tests(4);
    tests[0].id = "VecAdd.Large";
    tests[0].status = grader::test_status::failed;  // correctness: never profiled
    tests[1].id = "VecAdd.Bandwidth";
    tests[1].performance = true;
    tests[1].status = grader::test_status::failed;
    tests[1].messages = {"vecadd: 4% of the copy bandwidth; 60% is needed"};
    tests[2].id = "CachePerf.HitSkipsNvrtc";
    tests[2].performance = true;
    tests[2].status = grader::test_status::failed;
    tests[3].id = "VecAdd.Faster";
    tests[3].performance = true;
    tests[3].status = grader::test_status::passed;
    return tests;
}

TEST(ProfileEvidence, AFailedSpeedTestOfTheKernelsLeadsWithWhatTheProfileShows) {
    fake_ncu fake;
    auto tests = speed_tests();
    std::vector<std::string> profiled;
    const auto notes = grader::add_profile_evidence(
        tests, {"VecAdd.Bandwidth", "VecAdd.Faster"}, {}, fake.dir.path() / "reports",
        [] { return grader::kernel_sources{}; },
        [&](const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds) {
            profiled.push_back(id);
            std::ofstream(arg_after(tool, "--log-file")) << fixture("vecadd_index_transposed");
            return true;
        });
    EXPECT_TRUE(notes.empty());
    EXPECT_EQ(profiled, std::vector<std::string>{"VecAdd.Bandwidth"}) << "only failed tests of the kernels' speed";
    ASSERT_EQ(tests[1].messages.size(), 2u);
    EXPECT_EQ(tests[1].messages[0].rfind("Nsight Compute: lesson01::vecadd_kernel:", 0), 0u) << tests[1].messages[0];
    EXPECT_TRUE(tests[1].kernels.empty()) << "the table is for --profile";
    EXPECT_TRUE(tests[2].messages.empty()) << "a cache's speed is not explained by a kernel profile";
}

// A speed test that failed for something other than its kernels' speed
// (here no kernel of the student's did the work, as the judge read from the
// GPU's record; explained.hpp lists the rest) is not profiled, and the
// report says why; with --profile it is profiled like every test.
TEST(ProfileEvidence, AFailureThatIsNotTheKernelsSpeedIsNotProfiled) {
    fake_ncu fake;
    auto tests = speed_tests();
    tests[1].messages = {"in 20 of 20 timed calls of matmul_naive no kernel ran on the GPU"};
    tests[1].explained_beyond_the_tools = true;
    tests[3].status = grader::test_status::failed;
    std::vector<std::string> profiled;
    auto run_under = [&](const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds) {
        profiled.push_back(id);
        std::ofstream(arg_after(tool, "--log-file")) << fixture("vecadd_index_transposed");
        return true;
    };
    const auto notes = grader::add_profile_evidence(tests, {"VecAdd.Bandwidth", "VecAdd.Faster"}, {},
                                                    fake.dir.path() / "reports",
                                                    [] { return grader::kernel_sources{}; }, run_under);
    EXPECT_EQ(profiled, std::vector<std::string>{"VecAdd.Faster"}) << "the other failure is profiled";
    EXPECT_EQ(notes, std::vector<std::string>{"Nsight Compute did not profile VecAdd.Bandwidth: the failure is not "
                                              "how fast your kernels ran (the test's message says what it is), which "
                                              "is all a profile measures"});
    EXPECT_EQ(tests[1].messages.size(), 1u) << "nothing added to the judge's words";
    EXPECT_EQ(grader::tests_to_profile(tests, {"VecAdd.Bandwidth", "VecAdd.Faster"}, false),
              std::vector<std::string>{"VecAdd.Faster"});
    EXPECT_EQ(grader::tests_to_profile(tests, {"VecAdd.Bandwidth", "VecAdd.Faster"}, true),
              (std::vector<std::string>{"VecAdd.Bandwidth", "CachePerf.HitSkipsNvrtc", "VecAdd.Faster"}));
}

TEST(ProfileEvidence, ProfileEveryTestGivesEachSpeedTestItsTable) {
    fake_ncu fake;
    auto tests = speed_tests();
    tests[1].status = grader::test_status::not_run;  // held back by a failed correctness test
    tests[1].messages = {"needs correctness first"};
    grader::profile_options options;
    options.every_test = true;
    std::vector<std::string> profiled;
    grader::add_profile_evidence(
        tests, {"VecAdd.Bandwidth", "VecAdd.Faster"}, options, fake.dir.path() / "reports",
        [] { return grader::kernel_sources{}; },
        [&](const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds) {
            profiled.push_back(id);
            std::ofstream(arg_after(tool, "--log-file")) << fixture("vecadd_solution");
            return true;
        });
    EXPECT_EQ(profiled, (std::vector<std::string>{"VecAdd.Bandwidth", "CachePerf.HitSkipsNvrtc", "VecAdd.Faster"}));
    for (int i : {1, 2, 3}) EXPECT_EQ(tests[i].kernels.size(), 1u) << tests[i].id;
    EXPECT_EQ(tests[1].messages, std::vector<std::string>{"needs correctness first"}) << "not run: nothing to explain";
    EXPECT_EQ(tests[3].status, grader::test_status::passed);
    EXPECT_TRUE(tests[3].messages.empty());
}

TEST(ProfileEvidence, CountersThatMayNotBeReadAreSaidOnceWithTheFix) {
    fake_ncu fake;
    auto tests = speed_tests();
    tests[3].status = grader::test_status::failed;
    int runs = 0;
    const auto notes = grader::add_profile_evidence(
        tests, {"VecAdd.Bandwidth", "VecAdd.Faster"}, {}, fake.dir.path() / "reports",
        [] { return grader::kernel_sources{}; },
        [&](const std::string&, const std::vector<std::string>& tool, std::chrono::milliseconds) {
            ++runs;
            std::ofstream(arg_after(tool, "--log-file"))
                << "==PROF== Connected to process 7 (/b/lesson01_exercise_tests)\n"
                   "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
                   "Counters on the target device 0.\n";
            return true;
        });
    EXPECT_EQ(runs, 1) << "no second try where the first could not read the counters";
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_TRUE(contains(notes[0], "ERR_NVGPUCTRPERM")) << notes[0];
    EXPECT_TRUE(contains(notes[0], "an administrator can let every user read the GPU's performance counters"));
    EXPECT_EQ(tests[1].messages.size(), 1u) << "no profile, nothing claimed";
}

// A profile stopped at its limit (on an H200, ncu waited for a helper
// process a cheat left running) has no table: ncu writes it as it ends. It
// explains nothing, not even that no kernel ran, and the next test is
// profiled as usual.
TEST(ProfileEvidence, AProfileCutShortSaysNothingOfTheKernels) {
    fake_ncu fake;
    auto tests = speed_tests();
    tests[3].status = grader::test_status::failed;
    std::vector<std::string> profiled;
    const auto notes = grader::add_profile_evidence(
        tests, {"VecAdd.Bandwidth", "VecAdd.Faster"}, {}, fake.dir.path() / "reports",
        [] { return grader::kernel_sources{}; },
        [&](const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds) {
            profiled.push_back(id);
            if (id == "VecAdd.Bandwidth") {
                std::ofstream(arg_after(tool, "--log-file")) << "==PROF== Connected to process 7 (/b/lesson01_exercise_tests)\n";
                return false;
            }
            std::ofstream(arg_after(tool, "--log-file")) << fixture("vecadd_index_transposed");
            return true;
        });
    EXPECT_EQ(profiled, (std::vector<std::string>{"VecAdd.Bandwidth", "VecAdd.Faster"}));
    EXPECT_EQ(tests[1].messages.size(), 1u) << tests[1].messages.front();
    EXPECT_EQ(notes, std::vector<std::string>{"Nsight Compute did not finish profiling VecAdd.Bandwidth within its "
                                              "time limit, so there is no profile to explain it with"});
    ASSERT_EQ(tests[3].messages.size(), 1u);
    EXPECT_EQ(tests[3].messages[0].rfind("Nsight Compute: lesson01::vecadd_kernel:", 0), 0u) << tests[3].messages[0];
}

TEST(ProfileEvidence, WithoutNcuTheRunSaysHowToGetIt) {
    if (std::filesystem::exists("/usr/local/cuda/bin/ncu")) GTEST_SKIP() << "the toolkit has it";
    setenv("COURSE_NCU", "/no/such/ncu", 1);
    const std::string saved_path = getenv("PATH") ? getenv("PATH") : "";
    setenv("PATH", "/no/such/folder", 1);
    auto tests = speed_tests();
    const auto notes = grader::add_profile_evidence(
        tests, {"VecAdd.Bandwidth"}, {}, "/tmp/unused", [] { return grader::kernel_sources{}; },
        [&](const std::string&, const std::vector<std::string>&, std::chrono::milliseconds) {
            ADD_FAILURE() << "ran without ncu";
            return false;
        });
    setenv("PATH", saved_path.c_str(), 1);
    unsetenv("COURSE_NCU");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_TRUE(contains(notes[0], "install Nsight Compute"));
    EXPECT_EQ(tests[1].messages.size(), 1u);
}

}  // namespace
