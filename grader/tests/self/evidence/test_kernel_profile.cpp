// Reading what Nsight Compute and cuobjdump print (samples of their real
// output on an H100 with CUDA 13.0).
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

TEST(KernelProfile, ReadsEveryRowInOrderWithItsNumbers) {
    const auto rows = grader::ncu_csv_rows(ncu_report);
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(grader::field_of(rows[0], "Kernel Name"), "_Z10own_kernelPfi");
    EXPECT_EQ(grader::ncu_number(grader::field_of(rows[0], "Metric Value")), 6208);  // thousands separators
    EXPECT_EQ(grader::ncu_number(grader::field_of(rows[1], "Metric Value")), 4.38);
    EXPECT_EQ(grader::field_of(rows[1], "Metric Unit"), "usecond");
    EXPECT_EQ(grader::field_of(rows[3], "Kernel Name").rfind("sm80_xmma_gemm", 0), 0u);
    EXPECT_EQ(grader::ncu_number("n/a"), std::nullopt);
}

TEST(KernelProfile, IgnoresWhatIsNotARow) {
    EXPECT_TRUE(grader::ncu_csv_rows("==PROF== nothing\n==WARNING== No kernels were profiled.\n").empty());
    EXPECT_TRUE(grader::ncu_csv_rows("\"not\",\"a\",\"header\"\n\"1\",\"2\",\"3\"\n").empty());
}

TEST(KernelProfile, NamesTheSourceFileOfEachKernel) {
    const auto kernels = grader::parse_kernel_symbols(cuobjdump_symbols);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels.at("_Z10own_kernelPfi"), "matmul_tiled.cu");
    EXPECT_EQ(kernels.at("_Z12naive_kernelPKfS0_Pf"), "matmul_naive.cu");
}

}  // namespace
