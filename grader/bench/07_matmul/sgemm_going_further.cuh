#pragma once
// Lesson 07, going further: a float32 matrix product written to come close to
// cuBLAS's own float32 kernels (CUDA cores, no tensor cores, no TF32). It is
// not part of the exercises; the benchmark runs it beside cuBLAS (row
// BM_matmul/going_further), and sgemm_going_further.cu is there to be
// read: it adds bigger tiles, warp tiling, cp.async copies in a multi-stage
// pipeline and a cache-friendly block order to part 3's register blocking.
#include <cuda_runtime_api.h>

#include <string>

#include "matmul.cuh"

namespace lesson07::going_further {

// C = A x B, as lesson07::matmul_register_blocked: row-major float32, any
// shapes that fit together (std::invalid_argument otherwise), launched on
// `stream` without waiting. Shapes the fast kernel does not cover (see the
// .cu file) run a plain tiled kernel instead, so every shape is correct.
void sgemm(const_matrix a, const_matrix b, matrix c, cudaStream_t stream = nullptr);

// Compares sgemm's product of a and b (square, dense) with cuBLAS's in
// float32, once, before the kernel is timed: empty where every element is
// finite and within 1e-4 of the largest |C|, else what went wrong. Here, not
// in the benchmark, because its cuBLAS call is lesson07's part 4.
std::string differs_from_cublas(const_matrix a, const_matrix b);

}  // namespace lesson07::going_further
