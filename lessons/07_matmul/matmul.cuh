#pragma once
// Lesson 07 contract: what exercises/07_matmul/*.cu implement.
//
// Every version computes the matrix product C = A x B,
//
//     c(i, j) = sum over k of a(i, k) * b(k, j),
//
// for float32 matrices stored row-major: A is M x K, B is K x N, C is M x N.
// Element (row, col) of a view m is m(row, col) == m.data()[row * m.pitch() + col];
// pitch() == cols() for a dense matrix and is larger when rows are padded.
// M, N and K are at least 1 and need not be multiples of any tile size.
//
// Each function launches on `stream` and returns without waiting for the GPU.
// Shapes that do not fit together throw std::invalid_argument (check_shapes,
// in matmul_kernels.cuh, does it); a launch the GPU refuses throws course::cuda_error.
//
// The rule of this lesson: the three hand-written versions compute the
// product themselves. One that calls cuBLAS, cuBLASLt, CUTLASS or the cuBLAS
// version of this file scores zero; the tests read the compiled library's
// symbols to check.
//
// The three hand-written versions are declared in matmul_kernels.cuh, which
// their files include (it compiles faster); this header adds the cuBLAS
// version.
#include <cublas_v2.h>

#include <memory>

#include "matmul_kernels.cuh"

namespace lesson07 {

// 4. exercises/07_matmul/matmul_cublas.cu
// The library's answer, called the right way. cuBLAS stores matrices
// column-major; a row-major matrix read as column-major is its transpose, so
// C = A x B is computed as C^T = B^T x A^T (see the README).
class cublas_matmul {
public:
    // Creates the cuBLAS handle, once: creating one takes far longer than a
    // small multiplication, so a program keeps it and reuses it.
    // allow_tf32 == false (the default) keeps full float32 arithmetic; true
    // lets cuBLAS round the inputs to TF32 (10 mantissa bits instead of 23)
    // and use the tensor cores: several times faster, about 3 decimal digits.
    explicit cublas_matmul(bool allow_tf32 = false);

    // C = A x B on `stream`.
    void operator()(const_matrix a, const_matrix b, matrix c, cudaStream_t stream = nullptr);

private:
    struct destroy_handle {
        void operator()(cublasHandle_t handle) const noexcept { cublasDestroy(handle); }
    };
    // cublasHandle_t is a cublasContext*: the unique_ptr owns it (rule of
    // zero: moving works, copying does not compile, the handle is destroyed once).
    std::unique_ptr<cublasContext, destroy_handle> handle_;
};

}  // namespace lesson07
