// Lesson 02: doublify, 2D blocks and grids, pitched memory. Reference solution.
#include "doublify.cuh"

#include <algorithm>
#include <stdexcept>

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson02 {

namespace {

// What each kernel does to one element. Both kernels are the same walk over
// the matrix; only this step differs, so one kernel template serves both.
struct times_two {
    __device__ float operator()(float x) const { return 2.0f * x; }
};
struct scale_and_shift {
    float s, t;
    __device__ float operator()(float x) const { return s * x + t; }
};

// Each thread handles this many elements of its column, blockDim.y rows
// apart. With one element a thread, each thread has a single load in flight
// and the GPU cannot keep enough bytes moving to reach its copy bandwidth;
// with four loads issued before the first store, it can. Consecutive threads
// still take consecutive columns, so every warp access stays coalesced.
constexpr unsigned rows_per_thread = 4;

// The most rows of blocks a grid may have (gridDim.y <= 65535).
constexpr unsigned max_grid_rows = 65535;

// out(row, col) = f(in(row, col)). For doublify, in and out are the same
// matrix: each thread reads its elements before it writes them, and no other
// thread touches them, so in place is safe.
template <class F>
__global__ void map_2d_kernel(course::device_span_2d<const float> in,
                              course::device_span_2d<float> out, F f) {
    // x runs along a row: the 32 threads of a warp take 32 neighbouring
    // columns, so their loads fall in one 128-byte stretch of memory.
    const std::size_t col = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (col >= out.cols()) return;  // the last column of blocks is usually partial

    // A block covers `tile` rows; the loop moves on by the whole grid's height,
    // so a matrix taller than 65535 rows of blocks is still covered.
    const std::size_t tile = static_cast<std::size_t>(blockDim.y) * rows_per_thread;
    for (std::size_t top = blockIdx.y * tile + threadIdx.y; top < out.rows();
         top += gridDim.y * tile) {
        float value[rows_per_thread];
#pragma unroll
        for (unsigned k = 0; k < rows_per_thread; ++k) {
            const std::size_t row = top + k * blockDim.y;
            if (row < out.rows()) value[k] = in(row, col);  // a(row, col) honours the pitch
        }
#pragma unroll
        for (unsigned k = 0; k < rows_per_thread; ++k) {
            const std::size_t row = top + k * blockDim.y;
            if (row < out.rows()) out(row, col) = f(value[k]);
        }
    }
}

// Enough blocks to cover every column, and every row in tiles of
// block.y * rows_per_thread, rounded up on both axes: the last row and
// column of blocks are usually partial.
dim3 grid_for(std::size_t rows, std::size_t cols, dim3 block) {
    const unsigned tile = block.y * rows_per_thread;
    return dim3(course::blocks_for(cols, block.x),
                std::min(course::blocks_for(rows, tile), max_grid_rows));
}

template <class F>
void launch_map_2d(course::device_span_2d<const float> in, course::device_span_2d<float> out, F f,
                   dim3 block, cudaStream_t stream) {
    if (block.z != 1) throw std::invalid_argument("lesson02: block.z must be 1 (a 2D block)");
    if (out.empty()) return;  // a grid of 0 blocks is an invalid launch, not a no-op
    map_2d_kernel<<<grid_for(out.rows(), out.cols(), block), block, 0, stream>>>(in, out, f);
    // A refused configuration (64 x 32 = 2048 threads, say) shows up only here.
    CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void doublify(course::device_span_2d<float> a, dim3 block, cudaStream_t stream) {
    launch_map_2d(a, a, times_two{}, block, stream);
}

void affine(course::device_span_2d<const float> a, float s, float t,
            course::device_span_2d<float> out, dim3 block, cudaStream_t stream) {
    if (a.rows() != out.rows() || a.cols() != out.cols())
        throw std::invalid_argument("lesson02::affine: a and out must have the same shape");
    launch_map_2d(a, out, scale_and_shift{s, t}, block, stream);
}

// ---------------------------------------------------------------------------
// Part 2: pitched memory.

pitched_matrix::pitched_matrix(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols) {
    if (rows == 0 || cols == 0) return;  // nothing to allocate
    // cudaMallocPitch takes the width of a row in bytes and the number of
    // rows, and reports the pitch it chose, in bytes: the row width rounded
    // up so that every row starts aligned.
    void* raw = nullptr;
    CUDA_CHECK(cudaMallocPitch(&raw, &pitch_bytes_, cols * sizeof(float), rows));
    memory_.reset(static_cast<float*>(raw));
}

void pitched_matrix::copy_from_host(const float* host, std::size_t host_pitch) {
    if (host_pitch < cols_) throw std::invalid_argument("pitched_matrix: host_pitch < cols");
    if (rows_ == 0 || cols_ == 0) return;
    // The two pitches (bytes) say where each row starts on either side; the
    // width is the bytes of data in one row, so padding is never copied.
    CUDA_CHECK(cudaMemcpy2D(memory_.get(), pitch_bytes_, host, host_pitch * sizeof(float),
                            cols_ * sizeof(float), rows_, cudaMemcpyHostToDevice));
}

void pitched_matrix::copy_to_host(float* host, std::size_t host_pitch) const {
    if (host_pitch < cols_) throw std::invalid_argument("pitched_matrix: host_pitch < cols");
    if (rows_ == 0 || cols_ == 0) return;
    CUDA_CHECK(cudaMemcpy2D(host, host_pitch * sizeof(float), memory_.get(), pitch_bytes_,
                            cols_ * sizeof(float), rows_, cudaMemcpyDeviceToHost));
}

// Kernels index in elements; cudaMallocPitch's pitch is in bytes (always a
// multiple of the GPU's alignment, so of sizeof(float)).
course::device_span_2d<float> pitched_matrix::view() {
    return {memory_.get(), rows_, cols_, pitch_bytes_ / sizeof(float)};
}

course::device_span_2d<const float> pitched_matrix::view() const {
    return {memory_.get(), rows_, cols_, pitch_bytes_ / sizeof(float)};
}

}  // namespace lesson02
