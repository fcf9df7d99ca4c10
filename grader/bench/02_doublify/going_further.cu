// Going further: doublify with 16-byte accesses (see going_further.cuh).
#include "going_further.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson02::bench {

namespace {

constexpr unsigned block_x = 32;  // a warp along a row: 32 neighbouring float4s, 512 bytes
constexpr unsigned block_y = 8;
constexpr unsigned max_grid_rows = 65535;  // gridDim.y's limit

__device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__device__ __forceinline__ float4 twice(float4 v) {
    return make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
}

// Plain accesses keep the line in L2 like any other; the streaming ones
// (ld.global.cs, st.global.cs) mark it to be evicted first.
template <bool Streaming, class V>
__device__ __forceinline__ V load(const V* p) {
    if constexpr (Streaming) return __ldcs(p);
    else return *p;
}
template <bool Streaming, class V>
__device__ __forceinline__ void store(V* p, V value) {
    if constexpr (Streaming) __stcs(p, value);
    else *p = value;
}

// The lesson's walk (x along a row, each thread `Rows` rows blockDim.y
// apart, all loads before the stores, a grid-stride loop down the matrix),
// on elements of type V: float4 for the fast path, float for any other view.
// width and pitch are counted in V. The host keeps rows and width below
// 2^31, so the 32-bit row and column never wrap.
template <class V, int Rows, bool Streaming>
__global__ void doublify_kernel(V* a, unsigned rows, unsigned width, std::size_t pitch) {
    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= width) return;
    const unsigned tile = blockDim.y * Rows;
    for (unsigned top = blockIdx.y * tile + threadIdx.y; top < rows; top += gridDim.y * tile) {
        V value[Rows];
#pragma unroll
        for (int k = 0; k < Rows; ++k) {
            const unsigned row = top + k * blockDim.y;
            if (row < rows) value[k] = load<Streaming>(a + row * pitch + col);
        }
#pragma unroll
        for (int k = 0; k < Rows; ++k) {
            const unsigned row = top + k * blockDim.y;
            if (row < rows) store<Streaming>(a + row * pitch + col, twice(value[k]));
        }
    }
}

template <class V, int Rows, bool Streaming>
void launch(V* a, unsigned rows, unsigned width, std::size_t pitch, cudaStream_t stream) {
    const dim3 block(block_x, block_y);
    const dim3 grid(course::blocks_for(width, block_x),
                    std::min(course::blocks_for(rows, block_y * Rows), max_grid_rows));
    doublify_kernel<V, Rows, Streaming><<<grid, block, 0, stream>>>(a, rows, width, pitch);
    CUDA_CHECK(cudaGetLastError());
}

template <class V, bool Streaming>
void launch(V* a, unsigned rows, unsigned width, std::size_t pitch, unsigned rows_per_thread,
            cudaStream_t stream) {
    switch (rows_per_thread) {
        case 2: return launch<V, 2, Streaming>(a, rows, width, pitch, stream);
        case 4: return launch<V, 4, Streaming>(a, rows, width, pitch, stream);
        default: throw std::invalid_argument("doublify_going_further: rows_per_thread must be 2 or 4");
    }
}

template <class V>
void launch(V* a, unsigned rows, unsigned width, std::size_t pitch, unsigned rows_per_thread, bool streaming,
            cudaStream_t stream) {
    if (streaming) launch<V, true>(a, rows, width, pitch, rows_per_thread, stream);
    else launch<V, false>(a, rows, width, pitch, rows_per_thread, stream);
}

}  // namespace

void doublify_going_further(course::device_span_2d<float> a, unsigned rows_per_thread, bool streaming,
                            cudaStream_t stream) {
    if (a.empty()) return;  // a grid of 0 blocks is an invalid launch
    constexpr std::size_t limit = std::size_t{1} << 31;
    if (a.rows() >= limit || a.cols() >= limit)
        throw std::invalid_argument("doublify_going_further: rows and cols must be below 2^31");
    const auto rows = static_cast<unsigned>(a.rows());
    // float4 needs every access on a 16-byte boundary: the first element, and
    // every row's start (pitch), and whole packs in a row (cols).
    const bool packs = reinterpret_cast<std::uintptr_t>(a.data()) % 16 == 0 && a.cols() % 4 == 0 &&
                       a.pitch() % 4 == 0;
    if (packs)
        launch(reinterpret_cast<float4*>(a.data()), rows, static_cast<unsigned>(a.cols() / 4), a.pitch() / 4,
               rows_per_thread, streaming, stream);
    else
        launch(a.data(), rows, static_cast<unsigned>(a.cols()), a.pitch(), rows_per_thread, streaming, stream);
}

}  // namespace lesson02::bench
