#pragma once
// Lesson 02 contract: what exercises/02_doublify/doublify.cu implements.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "course/device_span_2d.hpp"

namespace lesson02 {

// ---------------------------------------------------------------------------
// Part 1: 2D blocks and grids.
//
// The matrices are views of rows x cols floats, row-major: element (row, col)
// is a(row, col) == a.data()[row * a.pitch() + col]. `block` is the shape of
// one thread block: block.x threads along a row (the columns), block.y along
// a column (the rows); block.z must be 1. Both functions launch on `stream`
// and return without waiting for the kernel to finish.
//
// An empty matrix (0 rows or 0 columns) is not an error: nothing is launched.
// A launch the GPU refuses (more than 1024 threads in a block, say 64 x 32)
// throws course::cuda_error instead of leaving the matrix silently unchanged.

// a(row, col) = 2 * a(row, col) for every element, in place: each element is
// doubled exactly once.
void doublify(course::device_span_2d<float> a, dim3 block = dim3(16, 16),
              cudaStream_t stream = nullptr);

// out(row, col) = s * a(row, col) + t for every element. a and out have the
// same rows and cols (throws std::invalid_argument otherwise), but their
// pitches may differ; a is only read.
void affine(course::device_span_2d<const float> a, float s, float t,
            course::device_span_2d<float> out, dim3 block = dim3(16, 16),
            cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 2: pitched memory.
//
// A rows x cols matrix of floats in device memory from cudaMallocPitch: each
// row starts pitch_bytes() after the one before, a width the GPU rounds up so
// that every row starts on an aligned address (rows of 33 floats, 132 bytes,
// typically start 512 bytes apart). Move-only; the memory is freed when the
// matrix goes away (rule of zero: the unique_ptr's deleter calls cudaFree).
class pitched_matrix {
public:
    // Allocates with cudaMallocPitch; the elements are uninitialised. A matrix
    // with 0 rows or 0 columns allocates nothing and has pitch_bytes() == 0.
    pitched_matrix(std::size_t rows, std::size_t cols);

    // Host -> device with cudaMemcpy2D. `host` holds rows() x cols() floats,
    // row-major, with `host_pitch` floats from one row's start to the next
    // (host_pitch >= cols(): the host matrix may itself be padded, or be a
    // block of a wider one).
    void copy_from_host(const float* host, std::size_t host_pitch);

    // Device -> host with cudaMemcpy2D, into the same kind of host matrix. It
    // writes the rows() x cols() elements only, never the host's padding.
    void copy_to_host(float* host, std::size_t host_pitch) const;

    // The view kernels take; its pitch() is in elements, not bytes.
    course::device_span_2d<float> view();
    course::device_span_2d<const float> view() const;

    std::size_t rows() const { return rows_; }
    std::size_t cols() const { return cols_; }
    // As cudaMallocPitch reported it: bytes from one row's start to the next.
    std::size_t pitch_bytes() const { return pitch_bytes_; }

private:
    struct cuda_free {
        void operator()(float* p) const noexcept { cudaFree(p); }  // destructors never throw
    };
    std::unique_ptr<float, cuda_free> memory_;
    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    std::size_t pitch_bytes_ = 0;
};

}  // namespace lesson02
