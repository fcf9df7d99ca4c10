// Lesson 07, part 1: the naive matrix product. Read lessons/07_matmul/README.md first.
// Grade your work with:  grader run lesson07
#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

// One thread per element of C.
__global__ void matmul_naive_kernel(const_matrix a, const_matrix b, matrix c) {
    // TODO(lesson07): compute this thread's column of C from blockIdx.x,
    // blockDim.x and threadIdx.x (x runs along a row, so neighbouring threads
    // get neighbouring columns) and its row from the .y parts. If (row, col)
    // lies inside C, store the dot product of row `row` of A with column `col`
    // of B:  c(row, col) = sum over k < a.cols() of a(row, k) * b(k, col),
    // summed in a float.
}

}  // namespace lesson07

void lesson07::matmul_naive(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    // TODO(lesson07): 1. check_shapes(a, b, c, "matmul_naive");
    //                 2. pick a 2D block, for example dim3 block(32, 8), and
    //                    a grid that covers all of C, rounded up in both
    //                    directions (course::blocks_for helps);
    //                 3. launch matmul_naive_kernel<<<grid, block, 0, stream>>>;
    //                 4. CUDA_CHECK(cudaGetLastError()).
    // Then delete the line below.
    course::todo("lesson07::matmul_naive in exercises/07_matmul/matmul_naive.cu");
}
