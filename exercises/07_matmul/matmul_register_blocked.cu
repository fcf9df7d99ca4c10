// Lesson 07, part 3: the register-blocked matrix product.
// Read "Register blocking" in lessons/07_matmul/README.md first.
// Grade your work with:  grader run lesson07
#include <cstdint>

#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

namespace {
// A block of 256 threads computes a 128 x 128 tile of C; each thread
// computes 8 x 8 of it, in registers. The block walks along K in steps of 8:
// one 128 x 8 tile of A and one 8 x 128 tile of B at a time. These are the
// reference's numbers; others work too.
constexpr int block_m = 128;
constexpr int block_n = 128;
constexpr int block_k = 8;
constexpr int thread_m = 8;
constexpr int thread_n = 8;
constexpr int threads = (block_m / thread_m) * (block_n / thread_n);  // 256
}  // namespace

__global__ void __launch_bounds__(threads, 2)
    matmul_register_blocked_kernel(const_matrix a, const_matrix b, matrix c) {
    // TODO(lesson07): the plan (the README's "Register blocking" has the why):
    //   - shared memory for one tile of A, stored transposed (a_tile[k][row],
    //     so that a thread's rows are neighbours: one float4 read), and one
    //     tile of B (b_tile[k][col]);
    //   - float acc[thread_m][thread_n] = {}: this thread's piece of C;
    //   - for each step along K (rounded up):
    //       copy the tiles: 1024 floats each, so 4 per thread; zeros
    //       outside A and B;
    //       __syncthreads();
    //       for k in 0..block_k-1: read this thread's 8 values of A and 8 of
    //         B from the tiles into registers, then acc[i][j] += a[i] * b[j]
    //         for all 64 pairs (#pragma unroll on every loop: the indices
    //         must be constants for acc to stay in registers);
    //       __syncthreads();
    //   - store the 8 x 8 results that lie inside C.
}

}  // namespace lesson07

void lesson07::matmul_register_blocked(const_matrix a, const_matrix b, matrix c,
                                       cudaStream_t stream) {
    // TODO(lesson07): check the shapes, launch matmul_register_blocked_kernel
    // with `threads` threads per block and one block per block_m x block_n
    // tile of C (grid rounded up), check the launch.
    // Then delete the line below.
    course::todo(
        "lesson07::matmul_register_blocked in exercises/07_matmul/matmul_register_blocked.cu");
}
