// Reading what a test program's kernels can do from `cuobjdump -sass`, which
// decides whether racecheck and synccheck have anything to look at.
//
// The listings follow cuobjdump's (CUDA 13.0) for the course's programs on
// an H200: lesson01's vecadd kernels (global loads and stores only) and
// lesson07's tiled kernel (shared-memory tiles and __syncthreads), cut to a
// few instructions each; each instruction's second line is its encoding.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "course/temp_dir.hpp"
#include "evidence/kernel_instructions.hpp"

namespace {

namespace fs = std::filesystem;

const char* const vecadd_sass = R"sass(
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

	code for sm_90
		Function : _ZN8lesson0113vecadd_kernelEN6course11device_spanIKfEES3_NS1_IfEE
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                    /* 0x00000a00ff017b82 */
                                                                             /* 0x000fe40000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                        /* 0x0000000000007919 */
                                                                             /* 0x000e280000002100 */
        /*0020*/                   ISETP.GE.U32.AND P0, PT, R0, UR4, PT ;   /* 0x0000000400007c0c */
                                                                             /* 0x000fda000bf06070 */
        /*0030*/               @P0 EXIT ;                                    /* 0x000000000000094d */
                                                                             /* 0x000fea0003800000 */
        /*0040*/                   LDG.E R2, desc[UR4][R2.64] ;              /* 0x0000000402027981 */
                                                                             /* 0x000ea8000c1e1900 */
        /*0050*/                   FADD R7, R2, R5 ;                         /* 0x0000000502077221 */
                                                                             /* 0x004fca0000000000 */
        /*0060*/                   STG.E desc[UR4][R4.64], R7 ;              /* 0x0000000704007986 */
                                                                             /* 0x000fe2000c101904 */
        /*0070*/                   EXIT ;                                    /* 0x000000000000794d */
                                                                             /* 0x000fea0003800000 */
        /*0080*/                   BRA 0x80;                                 /* 0xfffffffc00fc7947 */
                                                                             /* 0x000fc0000383ffff */
		..........
		Function : _ZN8lesson0114vecadd4_kernelEN6course11device_spanIKfEES3_NS1_IfEE
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                    /* 0x00000a00ff017b82 */
                                                                             /* 0x000fe40000000800 */
        /*0010*/                   BSSY B0, 0x1a0 ;                          /* 0x0000018000007945 */
                                                                             /* 0x000fe20003800000 */
        /*0020*/              @!P0 BRA 0x180 ;                               /* 0x0000000000088947 */
                                                                             /* 0x000fea0003800000 */
        /*0030*/                   LDG.E.128 R4, desc[UR4][R2.64] ;          /* 0x0000000402047981 */
                                                                             /* 0x000ea8000c1e1d00 */
        /*0040*/                   BSYNC B0 ;                                /* 0x0000000000007941 */
                                                                             /* 0x000fea0003800000 */
        /*0050*/                   EXIT ;                                    /* 0x000000000000794d */
                                                                             /* 0x000fea0003800000 */
		..........
)sass";

// One kernel of lesson07's, its tile in shared memory.
std::string tiled_kernel(const char* instructions) {
    return std::string(R"sass(
	code for sm_90
		Function : _ZN8lesson0719matmul_tiled_kernelEN6course14device_span_2dIKfEES3_NS1_IfEE
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                    /* 0x00000a00ff017b82 */
                                                                             /* 0x000fe40000000800 */
)sass") + instructions + "\t\t..........\n";
}

TEST(KernelInstructions, GlobalLoadsAndStoresGiveRacecheckAndSynccheckNothingToLookAt) {
    const auto seen = grader::read_kernel_instructions(vecadd_sass);
    EXPECT_EQ(seen.kernels, 2);
    EXPECT_FALSE(seen.shared_memory);
    EXPECT_FALSE(seen.synchronization) << "BSSY and BSYNC are the compiler's reconvergence, not a barrier";
}

TEST(KernelInstructions, SharedMemoryAndBarriersAreSeen) {
    const auto tiled = grader::read_kernel_instructions(std::string(vecadd_sass) + tiled_kernel(R"(
        /*0010*/                   STS [R7], R4 ;                            /* 0x0000000407007388 */
                                                                             /* 0x000fe80000000800 */
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;             /* 0x0000000000007b1d */
                                                                             /* 0x000fec0000010000 */
        /*0030*/                   LDS R9, [R6] ;                            /* 0x0000000006097984 */
                                                                             /* 0x000e280000000800 */
)"));
    EXPECT_EQ(tiled.kernels, 3);
    EXPECT_TRUE(tiled.shared_memory);
    EXPECT_TRUE(tiled.synchronization);
}

// The judge's check of a replay (course_harness_count_far) counts with
// generic atomics, which could reach shared memory: the harness's kernels
// are not the code under test, and are not read.
TEST(KernelInstructions, TheHarnesssOwnKernelsAreNotRead) {
    const auto seen = grader::read_kernel_instructions(std::string(vecadd_sass) + R"sass(
	code for sm_90
		Function : _ZN6course7testing12_GLOBAL__N_124course_harness_count_farENS_11device_spanIKfEES4_dPy
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   RED.E.ADD.64.STRONG.GPU desc[UR4][R2.64], R4 ;   /* 0x000000040200798e */
                                                                             /* 0x000fe2000c10e584 */
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;             /* 0x0000000000007b1d */
                                                                             /* 0x000fec0000010000 */
		..........
)sass");
    EXPECT_EQ(seen.kernels, 3);
    EXPECT_FALSE(seen.shared_memory);
    EXPECT_FALSE(seen.synchronization);
}

TEST(KernelInstructions, EachKindOfInstructionIsTold) {
    struct example {
        const char* instruction;
        bool shared_memory, synchronization;
    };
    for (const example& e : {
             example{"LDSM.16.M88.4 R4, [R2] ;", true, false},
             example{"ATOMS.ADD RZ, [R2], R3 ;", true, false},
             example{"LDGSTS.E.BYPASS.128 [R5], desc[UR4][R2.64] ;", true, false},
             example{"LD.E R3, desc[UR4][R2.64] ;", true, false},  // generic: may be shared memory
             example{"ST.E.64 desc[UR4][R2.64], R4 ;", true, false},
             example{"ATOM.E.ADD.STRONG.GPU PT, R5, desc[UR4][R2.64], R5 ;", true, false},
             example{"@!P0 SHFL.DOWN PT, R3, R2, 0x10, 0x1f ;", false, true},
             example{"WARPSYNC 0xffffffff ;", false, true},
             example{"VOTE.ANY R3, PT, P0 ;", false, true},
             example{"REDUX.SUM UR5, R2 ;", false, true},
             example{"SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR4], RZ ;", true, true},  // an mbarrier, in shared memory
             example{"@P1 BAR.SYNC.DEFER_BLOCKING 0x0 ;", false, true},
             example{"REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R5 ;", false, false},  // global
             example{"ATOMG.E.ADD.STRONG.GPU PT, R5, desc[UR4][R2.64], R5 ;", false, false},
             example{"LDL R2, [R1] ;", false, false},  // local memory
             example{"ULDC UR4, c[0x0][0x208] ;", false, false},
         }) {
        const std::string line = std::string("        /*0010*/                   ") + e.instruction +
                                 "   /* 0x0000000407007388 */\n";
        const auto seen = grader::read_kernel_instructions(tiled_kernel(line.c_str()));
        EXPECT_EQ(seen.shared_memory, e.shared_memory) << e.instruction;
        EXPECT_EQ(seen.synchronization, e.synchronization) << e.instruction;
    }
}

TEST(KernelInstructions, ALibraryThatCompilesOrLoadsKernelsWhileItRunsIsSeen) {
    course::temp_dir dir{"grader-kernel-instructions"};
    const fs::path plain = dir.path() / "libplain.a", nvrtc = dir.path() / "libnvrtc.a";
    std::ofstream(plain, std::ios::binary) << "!<arch>\n" << std::string(64, '\0') << "cudaMalloc\0cudaFree";
    std::ofstream(nvrtc, std::ios::binary) << "!<arch>\n" << std::string(64, '\0') << "nvrtcCompileProgram\0cuModuleLoadData";
    EXPECT_FALSE(grader::loads_kernels_at_run_time(plain));
    EXPECT_TRUE(grader::loads_kernels_at_run_time(nvrtc));
}

// cuobjdump itself, stood in for by a script that prints a listing.
struct kernel_instructions_of : ::testing::Test {
    void SetUp() override {
        std::ofstream(library, std::ios::binary) << "!<arch>\ncudaMalloc";
        std::ofstream(program) << "an ELF program";
    }
    fs::path tool(const std::string& body) {
        const fs::path script = dir.path() / "cuobjdump";
        std::ofstream(script) << "#!/bin/sh\n" << body << "\n";
        fs::permissions(script, fs::perms::owner_all);
        return script;
    }
    course::temp_dir dir{"grader-kernel-instructions"};
    fs::path library = dir.path() / "libstudent.a", program = dir.path() / "tests";
    fs::path scratch = dir.path() / "program-sass.txt";
};

TEST_F(kernel_instructions_of, ReadsTheProgramAndRemovesTheListing) {
    std::ofstream(dir.path() / "listing.txt") << vecadd_sass;
    const auto seen = grader::kernel_instructions_of(
        tool("[ \"$1\" = -sass ] && [ \"$2\" = " + program.string() + " ] && cat " +
             (dir.path() / "listing.txt").string()),
        program, library, scratch);
    ASSERT_TRUE(seen);
    EXPECT_EQ(seen->kernels, 2);
    EXPECT_FALSE(seen->shared_memory);
    EXPECT_FALSE(fs::exists(scratch)) << "the listing stays behind";
}

// Once both kinds are seen nothing later can change the answer: cuobjdump
// is stopped rather than waited for. A listing written in pieces is read whole.
TEST_F(kernel_instructions_of, StopsOnceBothKindsAreSeenAndReadsAListingWrittenInPieces) {
    std::ofstream(dir.path() / "tiled.txt") << tiled_kernel(R"(
        /*0010*/                   STS [R7], R4 ;                            /* 0x0000000407007388 */
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;             /* 0x0000000000007b1d */
)");
    const auto start = std::chrono::steady_clock::now();
    const auto settled = grader::kernel_instructions_of(
        tool("cat " + (dir.path() / "tiled.txt").string() + "; exec sleep 30"), program, library, scratch);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << "cuobjdump was waited for";
    ASSERT_TRUE(settled);
    EXPECT_TRUE(settled->shared_memory && settled->synchronization);

    std::ofstream(dir.path() / "listing.txt") << vecadd_sass;
    const auto whole = grader::kernel_instructions_of(
        tool("head -c 700 " + (dir.path() / "listing.txt").string() + "; sleep 0.2; tail -c +701 " +
             (dir.path() / "listing.txt").string()),
        program, library, scratch);
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->kernels, 2);
}

TEST_F(kernel_instructions_of, WhatCannotBeReadLeavesTheQuestionOpen) {
    std::ofstream(dir.path() / "listing.txt") << vecadd_sass;
    const fs::path lists = tool("cat " + (dir.path() / "listing.txt").string());
    EXPECT_FALSE(grader::kernel_instructions_of(std::nullopt, program, library, scratch)) << "no cuobjdump";
    EXPECT_FALSE(grader::kernel_instructions_of(lists, program, "", scratch)) << "no library";
    EXPECT_FALSE(grader::kernel_instructions_of(tool("echo 'cuobjdump fatal' >&2; exit 1"), program, library, scratch))
        << "cuobjdump failed";
    EXPECT_FALSE(grader::kernel_instructions_of(tool("echo 'no kernels here'"), program, library, scratch))
        << "no kernel read";
    std::ofstream(library, std::ios::binary) << "!<arch>\nnvrtcCompileProgram";
    EXPECT_FALSE(grader::kernel_instructions_of(tool("cat " + (dir.path() / "listing.txt").string()), program,
                                                library, scratch))
        << "kernels compiled at run time are not in the listing";
}

}  // namespace
