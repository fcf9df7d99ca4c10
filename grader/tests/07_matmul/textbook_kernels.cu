// The textbook kernels: see textbook_kernels.hpp.
#include "textbook_kernels.hpp"

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson07::testing {

namespace {

constexpr int tile = 16;

// Thread (x, y) of the grid computes C(y, x): the 16 threads along a row of
// the block read 16 neighbouring elements of a row of B (coalesced) and one
// element of A (a broadcast).
__global__ void textbook_naive_kernel(const_matrix a, const_matrix b, matrix c) {
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
__global__ void textbook_tiled_kernel(const_matrix a, const_matrix b, matrix c) {
    __shared__ float a_tile[tile][tile];
    __shared__ float b_tile[tile][tile];
    const int M = static_cast<int>(c.rows());
    const int N = static_cast<int>(c.cols());
    const int K = static_cast<int>(a.cols());
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * tile + ty;
    const int col = blockIdx.x * tile + tx;

    float sum = 0.0f;
    for (int k0 = 0; k0 < K; k0 += tile) {
        a_tile[ty][tx] = (row < M && k0 + tx < K) ? a(row, k0 + tx) : 0.0f;
        b_tile[ty][tx] = (k0 + ty < K && col < N) ? b(k0 + ty, col) : 0.0f;
        __syncthreads();
        for (int k = 0; k < tile; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) c(row, col) = sum;
}

// Both kernels run one 16 x 16 block per 16 x 16 tile of C, the grid rounded
// up so the partial tiles at the edges get a block.
void launch_over_tiles_of_c(void (*kernel)(const_matrix, const_matrix, matrix), const char* who, const_matrix a,
                            const_matrix b, matrix c, cudaStream_t stream) {
    check_shapes(a, b, c, who);
    const dim3 block(tile, tile);
    const dim3 grid(course::blocks_for(c.cols(), tile), course::blocks_for(c.rows(), tile));
    kernel<<<grid, block, 0, stream>>>(a, b, c);
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void textbook_naive_matmul(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    launch_over_tiles_of_c(textbook_naive_kernel, "textbook_naive_matmul", a, b, c, stream);
}

void textbook_tiled_matmul(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    launch_over_tiles_of_c(textbook_tiled_kernel, "textbook_tiled_matmul", a, b, c, stream);
}

}  // namespace lesson07::testing
