// Lesson 01: vector addition. Read lessons/01_vecadd/README.md first.
// Grade your work with:  grader run lesson01
#include "vecadd.cuh"

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson01 {

// Runs once per thread. Every thread adds (at most) one pair of elements.
__global__ void vecadd_kernel(course::device_span<const float> a,
                              course::device_span<const float> b,
                              course::device_span<float> c) {
    // TODO(lesson01): compute this thread's global index from blockIdx.x,
    // blockDim.x and threadIdx.x, and, if it lies inside c, store a + b there.
}

}  // namespace lesson01

void lesson01::vecadd(course::device_span<const float> a, course::device_span<const float> b,
                      course::device_span<float> c, int threads_per_block, cudaStream_t stream) {
    // TODO(lesson01): 1. return early when c is empty (a grid of 0 blocks is
    //                    an invalid launch);
    //                 2. choose the number of blocks so every element is
    //                    covered (course::blocks_for helps);
    //                 3. launch vecadd_kernel<<<blocks, threads_per_block, 0, stream>>>;
    //                 4. check the launch: CUDA_CHECK(cudaGetLastError()).
    // Then delete the line below.
    course::todo("lesson01::vecadd in exercises/01_vecadd/vecadd.cu");
}
