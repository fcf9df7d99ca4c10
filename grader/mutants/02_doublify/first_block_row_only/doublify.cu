// Known-wrong lesson02 (grader/mutants): the row ignores blockIdx.y, so only the first row of blocks is right.
#include "doublify.cuh"

#include <stdexcept>

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson02 {

// Runs once per thread. Every thread doubles (at most) one element.
__global__ void doublify_kernel(course::device_span_2d<float> a) {
    const std::size_t col = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t row = threadIdx.y;
    if (row < a.rows() && col < a.cols()) a(row, col) *= 2.0f;
}

// Runs once per thread. Every thread computes (at most) one element of out.
__global__ void affine_kernel(course::device_span_2d<const float> a, float s, float t,
                              course::device_span_2d<float> out) {
    const std::size_t col = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::size_t row = threadIdx.y;
    if (row < out.rows() && col < out.cols()) out(row, col) = s * a(row, col) + t;
}

namespace {
// Enough blocks to cover every column and every row.
dim3 grid_for(std::size_t rows, std::size_t cols, dim3 block) {
    return dim3(course::blocks_for(cols, block.x), course::blocks_for(rows, block.y));
}
}  // namespace

}  // namespace lesson02

void lesson02::doublify(course::device_span_2d<float> a, dim3 block, cudaStream_t stream) {
    if (block.z != 1) throw std::invalid_argument("lesson02: block.z must be 1 (a 2D block)");
    if (a.empty()) return;  // a grid of 0 blocks is an invalid launch, not a no-op
    doublify_kernel<<<grid_for(a.rows(), a.cols(), block), block, 0, stream>>>(a);
    CUDA_CHECK(cudaGetLastError());
}

void lesson02::affine(course::device_span_2d<const float> a, float s, float t,
                      course::device_span_2d<float> out, dim3 block, cudaStream_t stream) {
    if (a.rows() != out.rows() || a.cols() != out.cols())
        throw std::invalid_argument("lesson02::affine: a and out must have the same shape");
    if (block.z != 1) throw std::invalid_argument("lesson02: block.z must be 1 (a 2D block)");
    if (out.empty()) return;
    affine_kernel<<<grid_for(out.rows(), out.cols(), block), block, 0, stream>>>(a, s, t, out);
    CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------
// Part 2: pitched memory (right, as in the solution).

lesson02::pitched_matrix::pitched_matrix(std::size_t rows, std::size_t cols)
    : rows_(rows), cols_(cols) {
    if (rows == 0 || cols == 0) return;
    void* raw = nullptr;
    CUDA_CHECK(cudaMallocPitch(&raw, &pitch_bytes_, cols * sizeof(float), rows));
    memory_.reset(static_cast<float*>(raw));
}

void lesson02::pitched_matrix::copy_from_host(const float* host, std::size_t host_pitch) {
    if (host_pitch < cols_) throw std::invalid_argument("pitched_matrix: host_pitch < cols");
    if (rows_ == 0 || cols_ == 0) return;
    CUDA_CHECK(cudaMemcpy2D(memory_.get(), pitch_bytes_, host, host_pitch * sizeof(float),
                            cols_ * sizeof(float), rows_, cudaMemcpyHostToDevice));
}

void lesson02::pitched_matrix::copy_to_host(float* host, std::size_t host_pitch) const {
    if (host_pitch < cols_) throw std::invalid_argument("pitched_matrix: host_pitch < cols");
    if (rows_ == 0 || cols_ == 0) return;
    CUDA_CHECK(cudaMemcpy2D(host, host_pitch * sizeof(float), memory_.get(), pitch_bytes_,
                            cols_ * sizeof(float), rows_, cudaMemcpyDeviceToHost));
}

course::device_span_2d<float> lesson02::pitched_matrix::view() {
    return {memory_.get(), rows_, cols_, pitch_bytes_ / sizeof(float)};
}

course::device_span_2d<const float> lesson02::pitched_matrix::view() const {
    return {memory_.get(), rows_, cols_, pitch_bytes_ / sizeof(float)};
}
