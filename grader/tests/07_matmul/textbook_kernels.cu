// The textbook kernels: see textbook_kernels.hpp. This source stays with the
// instructor: the student edition (`grader release`) holds the same kernels as
// machine code only (textbook_kernels.fatbin, made from this file by
// make_textbook_fatbin.sh), because a plain 16 x 16 tiled kernel is a
// passing answer to lesson07's tiled part.
#include "textbook_kernels.hpp"

namespace {

constexpr int tile = 16;
using lesson07::const_matrix;
using lesson07::matrix;

}  // namespace

// extern "C": the names the student edition looks the kernels up by in the
// compiled copy (textbook_kernels_compiled.cpp) are these, unmangled.

// Thread (x, y) of the grid computes C(y, x): the 16 threads along a row of
// the block read 16 neighbouring elements of a row of B (coalesced) and one
// element of A (a broadcast).
extern "C" __global__ void course_textbook_naive_kernel(const_matrix a, const_matrix b, matrix c) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= static_cast<int>(c.rows()) || col >= static_cast<int>(c.cols())) return;
    float sum = 0.0f;
    for (int k = 0; k < static_cast<int>(a.cols()); ++k) sum += a(row, k) * b(k, col);
    c(row, col) = sum;
}

// Block (x, y) computes the 16 x 16 tile of C at (16 y, 16 x). Walking K one
// tile at a time, its 256 threads copy a tile of A and a tile of B into shared
// memory, one element each (neighbouring threads, neighbouring elements), and
// then every thread reads a row of the A tile and a column of the B tile: each
// element loaded from global memory is used 16 times.
extern "C" __global__ void course_textbook_tiled_kernel(const_matrix a, const_matrix b, matrix c) {
    __shared__ float a_tile[tile][tile];
    __shared__ float b_tile[tile][tile];
    const int rows_of_c = static_cast<int>(c.rows());
    const int cols_of_c = static_cast<int>(c.cols());
    const int inner = static_cast<int>(a.cols());
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * tile + ty;
    const int col = blockIdx.x * tile + tx;

    float sum = 0.0f;
    for (int k0 = 0; k0 < inner; k0 += tile) {
        a_tile[ty][tx] = (row < rows_of_c && k0 + tx < inner) ? a(row, k0 + tx) : 0.0f;
        b_tile[ty][tx] = (k0 + ty < inner && col < cols_of_c) ? b(k0 + ty, col) : 0.0f;
        __syncthreads();
        for (int k = 0; k < tile; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < rows_of_c && col < cols_of_c) c(row, col) = sum;
}

namespace lesson07::testing {

// Here the kernels are compiled into the program: the runtime's handle for
// each is its address.
const void* textbook_kernel(textbook which) {
    return which == textbook::naive ? reinterpret_cast<const void*>(&course_textbook_naive_kernel)
                                    : reinterpret_cast<const void*>(&course_textbook_tiled_kernel);
}

}  // namespace lesson07::testing
