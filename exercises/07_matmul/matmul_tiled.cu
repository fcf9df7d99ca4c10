// Lesson 07, part 2: the shared-memory tiled matrix product.
// Read "Tiling" in lessons/07_matmul/README.md first.
// Grade your work with:  grader run lesson07
#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

namespace {
// A block computes a tile x tile square of C, reading A and B in tile x tile
// squares.
constexpr int tile = 32;
}  // namespace

__global__ void matmul_tiled_kernel(const_matrix a, const_matrix b, matrix c) {
    __shared__ float a_tile[tile][tile];
    __shared__ float b_tile[tile][tile];
    // TODO(lesson07): for each step k0 = 0, tile, 2 * tile, ... while k0 < K
    //   (rounded up: the last step covers the remaining K % tile, if any):
    //   1. copy the tile of A at (block's first row, k0) and the tile of B
    //      at (k0, block's first column) into a_tile and b_tile. Neighbouring
    //      threads copy neighbouring elements; store 0 for elements outside
    //      A or B, so the sums need no bounds checks;
    //   2. __syncthreads(): the whole block must have stored its share;
    //   3. add the products of the tiles to this thread's sum(s);
    //   4. __syncthreads() again before the next step overwrites the tiles.
    // Finally store the sum(s) that lie inside C.
    //
    // The performance test wants at least 80% of the speed of the textbook
    // tiled kernel (16 x 16 tiles, one element of C per thread), timed on
    // your GPU in the same run: the plain form of the technique passes.
    // Letting each thread compute several elements (for example a 32 x 8
    // block where each thread computes rows ty, ty + 8, ty + 16, ty + 24 of
    // one column) goes faster still: see the README.
}

}  // namespace lesson07

void lesson07::matmul_tiled(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    // TODO(lesson07): check the shapes, launch matmul_tiled_kernel with one
    // block per tile of C (grid rounded up), check the launch.
    // Then delete the line below.
    course::todo("lesson07::matmul_tiled in exercises/07_matmul/matmul_tiled.cu");
}
