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
// Shapes that do not fit together throw std::invalid_argument (check_shapes
// below does it); a launch the GPU refuses throws course::cuda_error.
//
// The rule of this lesson: the three hand-written versions compute the
// product themselves. One that calls cuBLAS, cuBLASLt, CUTLASS or the cuBLAS
// version of this file scores zero; the tests read the compiled library's
// symbols to check.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <climits>
#include <memory>
#include <stdexcept>
#include <string>

#include "course/device_span_2d.hpp"

namespace lesson07 {

using matrix = course::device_span_2d<float>;
using const_matrix = course::device_span_2d<const float>;

// 1. exercises/07_matmul/matmul_naive.cu
// One thread per element of C; each thread reads a whole row of A and a whole
// column of B from global memory.
void matmul_naive(const_matrix a, const_matrix b, matrix c, cudaStream_t stream = nullptr);

// 2. exercises/07_matmul/matmul_tiled.cu
// A block computes one square tile of C. It walks along K one tile at a time,
// copying a tile of A and a tile of B into shared memory, where every thread
// of the block reuses them.
void matmul_tiled(const_matrix a, const_matrix b, matrix c, cudaStream_t stream = nullptr);

// 3. exercises/07_matmul/matmul_register_blocked.cu
// A block computes a large tile of C (128 x 128 in the reference) and each
// thread a small tile of it (8 x 8) held in registers, so that every value
// read from shared memory feeds several multiply-adds.
void matmul_register_blocked(const_matrix a, const_matrix b, matrix c,
                             cudaStream_t stream = nullptr);

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

// Throws std::invalid_argument unless A is M x K, B is K x N and C is M x N
// with M, N, K at least 1 and small enough for int indices (and for cuBLAS,
// whose sizes are ints). `who` names the caller in the message.
inline void check_shapes(const_matrix a, const_matrix b, const_matrix c, const char* who) {
    auto shape = [](const_matrix m) {
        return std::to_string(m.rows()) + " x " + std::to_string(m.cols());
    };
    if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
        throw std::invalid_argument(std::string(who) + ": shapes do not fit: A is " + shape(a) +
                                    ", B is " + shape(b) + ", C is " + shape(c) +
                                    " (need M x K times K x N into M x N)");
    if (a.empty() || b.empty())
        throw std::invalid_argument(std::string(who) + ": M, N and K must be at least 1");
    for (const_matrix m : {a, b, c})
        if (m.rows() > INT_MAX || m.pitch() > INT_MAX || m.cols() > m.pitch())
            throw std::invalid_argument(std::string(who) + ": a " + shape(m) +
                                        " matrix with pitch " + std::to_string(m.pitch()) +
                                        " is not supported");
}

}  // namespace lesson07
