#pragma once
// Lesson 07 contract, part 1: the three hand-written versions, which
// exercises/07_matmul/matmul_{naive,tiled,register_blocked}.cu implement.
// matmul.cuh holds the whole contract (this and the cuBLAS version) and says
// what every version computes; read it first.
//
// This part stays free of cuBLAS's header and of <string> and <stdexcept>
// on purpose: every edit of a kernel file recompiles it, and nvcc runs each
// header through four tools (matmul_tiled.cu compiles in 0.65 to 0.9 s with
// this header instead of 1.6 to 1.8 s with all of matmul.cuh, on the 2-core CI
// machine; 1.3 to 1.5 s instead of 3.2 to 3.6 s on an H200 machine).
#include <cuda_runtime_api.h>

#include <climits>
#include <initializer_list>

#include "course/device_span_2d.hpp"
#include "course/invalid_argument.hpp"

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

// Throws std::invalid_argument unless A is M x K, B is K x N and C is M x N
// with M, N, K at least 1 and small enough for int indices (and for cuBLAS,
// whose sizes are ints). `who` names the caller in the message.
inline void check_shapes(const_matrix a, const_matrix b, const_matrix c, const char* who) {
    if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
        course::throw_invalid_argument(
            "%s: shapes do not fit: A is %zu x %zu, B is %zu x %zu, C is %zu x %zu "
            "(need M x K times K x N into M x N)",
            who, a.rows(), a.cols(), b.rows(), b.cols(), c.rows(), c.cols());
    if (a.empty() || b.empty())
        course::throw_invalid_argument("%s: M, N and K must be at least 1", who);
    for (const_matrix m : {a, b, c})
        if (m.rows() > INT_MAX || m.pitch() > INT_MAX || m.cols() > m.pitch())
            course::throw_invalid_argument("%s: a %zu x %zu matrix with pitch %zu is not supported", who,
                                           m.rows(), m.cols(), m.pitch());
}

}  // namespace lesson07
