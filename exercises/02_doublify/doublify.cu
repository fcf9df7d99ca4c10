// Lesson 02: doublify, 2D blocks and grids, pitched memory.
// Read lessons/02_doublify/README.md first. Grade your work with:
//   grader run lesson02
#include "doublify.cuh"

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson02 {

// Runs once per thread. Every thread doubles (at most) one element.
__global__ void doublify_kernel(course::device_span_2d<float> a) {
    // TODO(lesson02): compute this thread's column from the x parts
    // (blockIdx.x * blockDim.x + threadIdx.x) and its row from the y parts.
    // Then, only if row < a.rows() and col < a.cols(), double a(row, col).
    // a(row, col) is a.data()[row * a.pitch() + col]: rows are a.pitch()
    // elements apart, which is more than a.cols() in pitched memory.
}

// Runs once per thread. Every thread computes (at most) one element of out.
__global__ void affine_kernel(course::device_span_2d<const float> a, float s, float t,
                              course::device_span_2d<float> out) {
    // TODO(lesson02): the same row and column as in doublify_kernel, the same
    // bounds check; then out(row, col) = s * a(row, col) + t.
}

}  // namespace lesson02

void lesson02::doublify(course::device_span_2d<float> a, dim3 block, cudaStream_t stream) {
    // TODO(lesson02): 1. return early when a is empty (a grid with 0 blocks
    //                    is an invalid launch);
    //                 2. choose a grid that covers every column with blocks of
    //                    block.x and every row with blocks of block.y, rounding
    //                    up on both axes (course::blocks_for does one axis):
    //                    dim3 grid(blocks for a.cols(), blocks for a.rows());
    //                 3. launch doublify_kernel<<<grid, block, 0, stream>>>(a);
    //                 4. check the launch: CUDA_CHECK(cudaGetLastError()).
    // Then delete the line below.
    course::todo("lesson02::doublify in exercises/02_doublify/doublify.cu");
}

void lesson02::affine(course::device_span_2d<const float> a, float s, float t,
                      course::device_span_2d<float> out, dim3 block, cudaStream_t stream) {
    // TODO(lesson02): throw std::invalid_argument when a and out differ in
    // rows or cols; then as in doublify, with affine_kernel.
    course::todo("lesson02::affine in exercises/02_doublify/doublify.cu");
}

// ---------------------------------------------------------------------------
// Part 2: pitched memory.

lesson02::pitched_matrix::pitched_matrix(std::size_t rows, std::size_t cols)
    : rows_(rows), cols_(cols) {
    // TODO(lesson02): unless rows or cols is 0, allocate with
    //   void* raw = nullptr;
    //   CUDA_CHECK(cudaMallocPitch(&raw, &pitch_bytes_, /* width in bytes */, /* rows */));
    // and hand the pointer to memory_ (memory_.reset(...)), which frees it.
    course::todo("lesson02::pitched_matrix::pitched_matrix in exercises/02_doublify/doublify.cu");
}

void lesson02::pitched_matrix::copy_from_host(const float* host, std::size_t host_pitch) {
    // TODO(lesson02): one cudaMemcpy2D(dst, dst_pitch, src, src_pitch, width, height, kind).
    // Pitches and width are in bytes; the width is the data in one row
    // (cols_ floats), not a pitch. Nothing to copy when the matrix is empty.
    course::todo("lesson02::pitched_matrix::copy_from_host in exercises/02_doublify/doublify.cu");
}

void lesson02::pitched_matrix::copy_to_host(float* host, std::size_t host_pitch) const {
    // TODO(lesson02): the same copy in the other direction.
    course::todo("lesson02::pitched_matrix::copy_to_host in exercises/02_doublify/doublify.cu");
}

course::device_span_2d<float> lesson02::pitched_matrix::view() {
    // TODO(lesson02): a view of memory_ with rows_, cols_ and the pitch in
    // elements (pitch_bytes_ is in bytes).
    course::todo("lesson02::pitched_matrix::view in exercises/02_doublify/doublify.cu");
}

course::device_span_2d<const float> lesson02::pitched_matrix::view() const {
    // TODO(lesson02): the same view, read-only.
    course::todo("lesson02::pitched_matrix::view in exercises/02_doublify/doublify.cu");
}
