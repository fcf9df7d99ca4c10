// Whether a build's GPU code runs on a GPU (checkout/architectures.hpp): the
// build's CMAKE_CUDA_ARCHITECTURES against a compute capability, which
// `grader batch` checks before it grades or submits anything.
#include <gtest/gtest.h>

#include "checkout/architectures.hpp"

namespace grader {
namespace {

// As the manifest writes them (commas), for the builds the course makes.
constexpr const char* login_node = "90";  // configured where there is no GPU
constexpr const char* portable = "75-real,80-real,86-real,89-real,90-real,100-real,120-real,120-virtual";

manifest build_of(const std::string& architectures) {
    manifest m;
    m.source_dir = "/home/prof/cuda-course";
    m.build_dir = "/home/prof/cuda-course/build";
    m.cuda_architectures = architectures;
    return m;
}

TEST(Architectures, ReadsCMakesListInEitherSpelling) {
    const auto archs = parse_architectures("75-real;90-virtual;120,90a-real");
    ASSERT_EQ(archs.size(), 4u);
    EXPECT_EQ(archs[0].arch, 75);
    EXPECT_TRUE(archs[0].sass);
    EXPECT_FALSE(archs[0].ptx);
    EXPECT_FALSE(archs[1].sass);
    EXPECT_TRUE(archs[1].ptx);
    EXPECT_TRUE(archs[2].sass && archs[2].ptx) << "a bare number is both";
    EXPECT_TRUE(archs[3].specific);
    EXPECT_TRUE(parse_architectures("native").empty());
    EXPECT_EQ(parse_architectures(portable).size(), 8u);
}

TEST(Architectures, ReadsAGpuArchitectureHoweverItIsWritten) {
    EXPECT_EQ(parse_compute_capability("sm_80"), 80);
    EXPECT_EQ(parse_compute_capability("SM_89"), 89);
    EXPECT_EQ(parse_compute_capability("compute_75"), 75);
    EXPECT_EQ(parse_compute_capability("8.6"), 86);
    EXPECT_EQ(parse_compute_capability("12.0"), 120);
    EXPECT_EQ(parse_compute_capability("sm_100"), 100);
    EXPECT_EQ(parse_compute_capability("90"), 90);
    EXPECT_EQ(parse_compute_capability("sm_90a"), 90);
    EXPECT_FALSE(parse_compute_capability("a100"));
    EXPECT_FALSE(parse_compute_capability(""));
    EXPECT_FALSE(parse_compute_capability("sm_"));
}

TEST(Architectures, MachineCodeRunsOnItsOwnMajorVersionAndPtxAboveIt) {
    EXPECT_EQ(fit_of(login_node, 90), gpu_fit::machine_code);
    EXPECT_EQ(fit_of(login_node, 80), gpu_fit::none) << "an A100";
    EXPECT_EQ(fit_of(login_node, 89), gpu_fit::none) << "an L4";
    EXPECT_EQ(fit_of(login_node, 75), gpu_fit::none) << "a T4";
    EXPECT_EQ(fit_of(login_node, 100), gpu_fit::ptx) << "a bare 90 holds PTX, which the driver compiles for a B200";
    EXPECT_EQ(fit_of("90-real", 100), gpu_fit::none) << "no PTX";
    EXPECT_EQ(fit_of("80-real", 86), gpu_fit::machine_code) << "sm_80 code runs on sm_86";
    EXPECT_EQ(fit_of("86-real", 80), gpu_fit::none) << "but not the other way";
    EXPECT_EQ(fit_of("80-real", 90), gpu_fit::none) << "nor across major versions";
    EXPECT_EQ(fit_of("90a-real", 90), gpu_fit::machine_code);
    EXPECT_EQ(fit_of("90a", 100), gpu_fit::none) << "sm_90a runs on sm_90 alone, its PTX too";
    for (int cc : {75, 80, 86, 87, 89, 90, 100, 103, 120, 121})
        EXPECT_EQ(fit_of(portable, cc), gpu_fit::machine_code) << cc;
    EXPECT_EQ(fit_of(portable, 130), gpu_fit::ptx) << "a GPU newer still: the newest PTX";
    EXPECT_EQ(fit_of("native", 80), gpu_fit::unknown);
    EXPECT_EQ(fit_of("all-major", 80), gpu_fit::unknown);
    EXPECT_EQ(fit_of("", 80), gpu_fit::unknown);
}

TEST(Architectures, SaysWhatABuildHolds) {
    EXPECT_EQ(describe_architectures("90"), "machine code for sm_90 and PTX for sm_90");
    EXPECT_EQ(describe_architectures("90-real"), "machine code for sm_90 and no PTX");
    EXPECT_EQ(describe_architectures(portable),
              "machine code for sm_75, sm_80, sm_86, sm_89, sm_90, sm_100 and sm_120 and PTX for sm_120");
}

TEST(Architectures, ABuildThatRunsOnTheGpuIsNoProblem) {
    EXPECT_EQ(architecture_problem(build_of(login_node), 90, "GPU 0 (NVIDIA H200 (sm_90))"), "");
    EXPECT_EQ(architecture_problem(build_of(portable), 75, "GPU 0 (Tesla T4 (sm_75))"), "");
    EXPECT_EQ(architecture_problem(build_of("native"), 80, "GPU 0"), "") << "cannot tell: no error";
}

TEST(Architectures, ALoginNodesBuildOnAnA100NamesBothAndTheFixes) {
    const std::string problem =
        architecture_problem(build_of(login_node), 80, "GPU 0 (NVIDIA A100-SXM4-80GB (sm_80))");
    for (const char* part : {"GPU 0 (NVIDIA A100-SXM4-80GB (sm_80)) is sm_80",
                             "the build in /home/prof/cuda-course/build holds machine code for sm_90 and PTX for sm_90",
                             "no kernel image is available", "./setup.sh --preset portable",
                             "--build-dir /home/prof/cuda-course/build-portable",
                             "cmake -B /home/prof/cuda-course/build -DCMAKE_CUDA_ARCHITECTURES=\"90;80\""})
        EXPECT_NE(problem.find(part), std::string::npos) << "missing \"" << part << "\" in:\n" << problem;
    EXPECT_NE(architecture_problem(build_of("90-real,80-real"), 75, "a T4").find("DCMAKE_CUDA_ARCHITECTURES=\"90-real;80-real;75\""),
              std::string::npos)
        << "the manifest's commas are CMake's semicolons again";
}

}  // namespace
}  // namespace grader
