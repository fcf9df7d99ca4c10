// Lesson 07, part 2: the shared-memory tiled matrix product, reference solution.
#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

namespace {
// A block computes a tile x tile square of C, reading A and B in tile x tile
// squares. 32 makes a row of a tile one warp wide: loads stay coalesced and
// shared-memory accesses free of bank conflicts.
constexpr int tile = 32;
// The block is 32 x 8 threads and each thread computes 4 elements of C, in
// rows ty, ty + 8, ty + 16 and ty + 24 of the tile. Why not one element per
// thread with a 32 x 32 block? Then every multiply-add needs two reads from
// shared memory, and shared memory, not arithmetic, sets the pace: on a recent
// GPU that is hardly faster than the naive kernel, whose reads the L1 cache
// serves. With 4 rows per thread, each value of B read from shared memory
// feeds 4 multiply-adds.
constexpr int rows_per_thread = 4;
constexpr int block_rows = tile / rows_per_thread;  // 8
}  // namespace

__global__ void matmul_tiled_kernel(const_matrix a, const_matrix b, matrix c) {
    // 16-byte aligned: the compute loop reads a_tile four floats at a time.
    __shared__ __align__(16) float a_tile[tile][tile];
    __shared__ float b_tile[tile][tile];

    const int M = static_cast<int>(c.rows());
    const int N = static_cast<int>(c.cols());
    const int K = static_cast<int>(a.cols());
    const int tx = threadIdx.x;  // column within the tile, 0..31
    const int ty = threadIdx.y;  // first row within the tile, 0..7
    const int tile_row = blockIdx.y * tile;
    const int col = blockIdx.x * tile + tx;

    float sum[rows_per_thread] = {};
    // Round up: when K is not a multiple of the tile, the last step covers
    // the remaining K % tile columns of A (and rows of B), zero-padded.
    for (int k0 = 0; k0 < K; k0 += tile) {
        // 1. Copy one tile of A and one of B into shared memory: each thread
        //    copies 4 elements of each, neighbouring threads neighbouring
        //    elements (coalesced). Outside A or B, store 0: zeros add nothing
        //    to the sums, so the compute loop below needs no bounds checks.
#pragma unroll
        for (int i = 0; i < rows_per_thread; ++i) {
            const int r = ty + i * block_rows;
            const int a_row = tile_row + r;
            const int a_col = k0 + tx;
            a_tile[r][tx] = (a_row < M && a_col < K) ? a(a_row, a_col) : 0.0f;
            const int b_row = k0 + r;
            b_tile[r][tx] = (b_row < K && col < N) ? b(b_row, col) : 0.0f;
        }
        // 2. Wait until the whole block has stored its share of both tiles.
        __syncthreads();

        // 3. Multiply the tiles, four steps of k at a time. b_tile[k][tx] is
        //    32 consecutive floats for a warp, in 32 different banks: no
        //    conflicts. A warp shares its rows of a_tile, so each read of A
        //    is a broadcast, and reading 4 neighbouring k as one float4 makes
        //    it one read instead of four.
#pragma unroll
        for (int k = 0; k < tile; k += 4) {
            const float b_k[4] = {b_tile[k][tx], b_tile[k + 1][tx], b_tile[k + 2][tx],
                                  b_tile[k + 3][tx]};
#pragma unroll
            for (int i = 0; i < rows_per_thread; ++i) {
                const float4 a_k =
                    *reinterpret_cast<const float4*>(&a_tile[ty + i * block_rows][k]);
                sum[i] += a_k.x * b_k[0];
                sum[i] += a_k.y * b_k[1];
                sum[i] += a_k.z * b_k[2];
                sum[i] += a_k.w * b_k[3];
            }
        }
        // 4. Wait until everybody is done with these tiles before the next
        //    step overwrites them.
        __syncthreads();
    }

    // Only the threads inside C store (the tiles at the edges hang over).
#pragma unroll
    for (int i = 0; i < rows_per_thread; ++i) {
        const int row = tile_row + ty + i * block_rows;
        if (row < M && col < N) c(row, col) = sum[i];
    }
}

}  // namespace lesson07

void lesson07::matmul_tiled(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    check_shapes(a, b, c, "matmul_tiled");
    const dim3 block(tile, block_rows);
    const dim3 grid(course::blocks_for(c.cols(), tile), course::blocks_for(c.rows(), tile));
    matmul_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c);
    CUDA_CHECK(cudaGetLastError());
}
