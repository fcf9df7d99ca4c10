#pragma once
// The yardsticks of lesson07's speed tests for hand-written kernels: the
// lesson's techniques in their plain, textbook form. The judge times them on
// the student's GPU, in the same run as the student's kernels, so a test asks
// "is your kernel as good as the plain technique on this GPU?", not "is it
// some fixed factor faster than another kernel?" (on a GPU whose caches
// serve the naive kernel well, plain tiling is only about 1.4x naive, and a
// fixed 2x measured the caches as much as the student's tiling).
#include <cuda_runtime_api.h>

#include "matmul.cuh"

namespace lesson07::testing {

// What each yardstick is, in the words a failure message uses.
inline constexpr const char* textbook_naive_name =
    "the textbook naive kernel (one thread per element of C, threadIdx.x along a row of C)";
inline constexpr const char* textbook_tiled_name =
    "the textbook tiled kernel (16 x 16 tiles of A and B in shared memory, one element of C per thread)";

// C = A x B with each kernel, on `stream`; shapes as the lesson's functions'.
void textbook_naive_matmul(lesson07::const_matrix a, lesson07::const_matrix b, lesson07::matrix c,
                           cudaStream_t stream);
void textbook_tiled_matmul(lesson07::const_matrix a, lesson07::const_matrix b, lesson07::matrix c,
                           cudaStream_t stream);

// Where each kernel comes from, as a handle cudaLaunchKernel takes: compiled
// into this program from textbook_kernels.cu (the instructor's edition), or
// loaded from the machine code the student edition carries instead
// (textbook_kernels_compiled.cpp). Throws course::cuda_error where the GPU
// cannot run it.
enum class textbook { naive, tiled };
const void* textbook_kernel(textbook which);

}  // namespace lesson07::testing
