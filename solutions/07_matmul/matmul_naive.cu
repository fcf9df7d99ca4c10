// Lesson 07, part 1: the naive matrix product, reference solution.
#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

// One thread per element of C: thread (row, col) computes the dot product of
// row `row` of A with column `col` of B. Every one of the 2K values it reads
// comes from global memory (or, with luck, a cache), for only K multiply-adds:
// this kernel waits on memory, not on arithmetic.
__global__ void matmul_naive_kernel(const_matrix a, const_matrix b, matrix c) {
    // threadIdx.x runs along a row of C: the 32 threads of a warp read 32
    // neighbouring elements of a row of B (one coalesced access) and the same
    // element of A (one broadcast), and store 32 neighbouring elements of C.
    const std::size_t col = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t row = static_cast<std::size_t>(blockIdx.y) * blockDim.y + threadIdx.y;
    // The grid is rounded up, so the edge blocks hang over C: those threads stop here.
    if (row >= c.rows() || col >= c.cols()) return;

    float sum = 0.0f;
    for (std::size_t k = 0; k < a.cols(); ++k) sum += a(row, k) * b(k, col);
    c(row, col) = sum;
}

}  // namespace lesson07

void lesson07::matmul_naive(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    check_shapes(a, b, c, "matmul_naive");
    // 32 x 8 = 256 threads: one warp along each row of the block.
    const dim3 block(32, 8);
    // Round up in both directions so the partial tiles at the right and bottom
    // edges of C get a block too.
    const dim3 grid(course::blocks_for(c.cols(), block.x), course::blocks_for(c.rows(), block.y));
    matmul_naive_kernel<<<grid, block, 0, stream>>>(a, b, c);
    CUDA_CHECK(cudaGetLastError());
}
