// Reading what Nsight Compute and cuobjdump print (samples of their real
// output on an H100 with CUDA 13.0), and saying where each kernel came from.
#include <gtest/gtest.h>

#include "evidence/kernel_profile.hpp"

namespace {

const char* const ncu_report = R"csv(==WARNING== Note: Running with uncontrolled GPU caches. Profiling results may be inconsistent.
==PROF== Connected to process 532 (/work/prog)
==PROF== Disconnected from process 532
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","532","prog","127.0.0.1","_Z10own_kernelPfi","1","7","(1024, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","6,208"
"1","532","prog","127.0.0.1","_Z10own_kernelPfi","1","7","(1024, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","4.38"
"2","532","prog","127.0.0.1","_Z4fillPf","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","1,000"
"3","532","prog","127.0.0.1","sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas","1","7","(128, 1, 1)","(8, 8, 4)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","11,552"
)csv";

const char* const cuobjdump_symbols = R"(
member /work/build/liblesson07_exercise.a:matmul_tiled.cu.o:

Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

symbols:
STT_OBJECT       STB_WEAK   STV_DEFAULT  U .nv.reservedSmem.offset0
STT_?            STB_WEAK   STO_RESERVED_SHARED   __nv_reservedSMEM_offset_0_alias
STT_FUNC         STB_GLOBAL STO_ENTRY      _Z10own_kernelPfi

member /work/build/liblesson07_exercise.a:matmul_naive.cu.o:

symbols:
STT_FUNC         STB_GLOBAL STO_ENTRY      _Z12naive_kernelPKfS0_Pf
)";

TEST(KernelProfile, ReadsEveryLaunchInOrderWithItsTime) {
    const auto launches = grader::parse_ncu_csv(ncu_report);
    ASSERT_EQ(launches.size(), 4u);
    EXPECT_EQ(launches[0].kernel, "_Z10own_kernelPfi");
    EXPECT_DOUBLE_EQ(launches[0].ns, 6208);  // thousands separators
    EXPECT_DOUBLE_EQ(launches[1].ns, 4380);  // other units
    EXPECT_EQ(launches[3].kernel.rfind("sm80_xmma_gemm", 0), 0u);
}

TEST(KernelProfile, IgnoresWhatIsNotAKernelTime) {
    EXPECT_TRUE(grader::parse_ncu_csv("==PROF== nothing\n==WARNING== No kernels were profiled.\n").empty());
    EXPECT_TRUE(grader::parse_ncu_csv("\"not\",\"a\",\"header\"\n\"1\",\"2\",\"3\"\n").empty());
}

TEST(KernelProfile, NamesTheSourceFileOfEachKernel) {
    const auto kernels = grader::parse_kernel_symbols(cuobjdump_symbols);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels.at("_Z10own_kernelPfi"), "matmul_tiled.cu");
    EXPECT_EQ(kernels.at("_Z12naive_kernelPKfS0_Pf"), "matmul_naive.cu");
}

TEST(KernelProfile, SaysWhereEachLaunchCameFrom) {
    const auto own = grader::parse_kernel_symbols(cuobjdump_symbols);
    std::map<std::string, std::string> program = own;
    program["_Z4fillPf"] = "test_matmul.cpp";
    const auto file = grader::attribute_launches(grader::parse_ncu_csv(ncu_report), own, program);
    ASSERT_TRUE(file.at("profiled").get<bool>());
    const auto& l = file.at("launches");
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0].at("origin"), "own");
    EXPECT_EQ(l[0].at("source"), "matmul_tiled.cu");
    EXPECT_EQ(l[2].at("origin"), "harness");
    EXPECT_EQ(l[3].at("origin"), "foreign");  // cuBLAS: in neither
}

TEST(KernelProfile, TheProfilerKeepsClocksAndCachesAsTheyAre) {
    const auto argv = grader::ncu_command("/usr/local/cuda/bin/ncu", "/tmp/report.csv");
    const std::string line = [&] {
        std::string all;
        for (const auto& a : argv) all += a + " ";
        return all;
    }();
    EXPECT_NE(line.find("--clock-control none"), std::string::npos);
    EXPECT_NE(line.find("--cache-control none"), std::string::npos);
    EXPECT_NE(line.find("--log-file /tmp/report.csv"), std::string::npos);
}

}  // namespace
