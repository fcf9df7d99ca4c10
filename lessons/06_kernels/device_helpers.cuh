#pragma once
// Lesson 06: device-side helpers shared by the elementwise launcher and the
// reduction (given; nothing to do here). Included by exercises/06_kernels/
// elementwise.cuh and reduction.cuh, never by host-only code.
//
//   pack<T>            16 bytes of T (4 floats, 2 doubles), loaded and stored
//                      with one vector instruction
//   is_aligned_16(p)   may p be read as a pack<T>?
//   grid_for(...)      how many blocks a grid-stride kernel should launch
//   stream_scratch<T>  a little device memory for one call's work on a stream
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "course/error.hpp"
#include "course/launch.hpp"

namespace lesson06 {

// 16 bytes of T. alignas(16) lets the compiler move a whole pack with one
// 128-bit instruction (ld.global.v4.f32 for floats) instead of four 32-bit
// ones: the same bytes, a quarter of the instructions, more bytes in flight.
template <class T>
struct alignas(16) pack {
    static_assert(16 % sizeof(T) == 0, "a pack holds a whole number of elements");
    static constexpr int width = 16 / sizeof(T);  // 4 floats, 2 doubles
    T v[width];
};

// A pack can only be read from, or written to, an address that is a multiple
// of 16 bytes: the hardware faults on a misaligned vector access
// (cudaErrorMisalignedAddress). cudaMalloc returns 256-byte aligned memory,
// but a view that starts at element 1 of it is only 4-byte aligned.
inline bool is_aligned_16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <class T>
__device__ __forceinline__ pack<T> load_pack(const T* p) {
    return *reinterpret_cast<const pack<T>*>(p);
}

template <class T>
__device__ __forceinline__ void store_pack(T* p, const pack<T>& value) {
    *reinterpret_cast<pack<T>*>(p) = value;
}

// How many elements to skip from `p` until the next 16-byte boundary (0 when
// p is on one). Every T* is aligned to sizeof(T), so this is less than
// pack<T>::width.
template <class T>
__host__ __device__ __forceinline__ std::size_t elements_to_alignment(const T* p) {
    const auto misaligned = reinterpret_cast<std::uintptr_t>(p) % 16;
    return misaligned == 0 ? 0 : (16 - misaligned) / sizeof(T);
}

// How many blocks of `threads` threads of `kernel` can be resident at once on
// the current GPU: blocks per SM (the occupancy calculator knows the kernel's
// registers and shared memory) times the number of SMs. A grid-stride kernel
// launched with this many blocks fills the GPU exactly once, and every block
// gets the same share of the work, so no half-empty last wave is left over.
//
// The answer depends only on the kernel, the block size and the device, so it
// is asked once and remembered (the occupancy calculator costs microseconds,
// as much as a small kernel). The cache is shared by all threads, hence the mutex.
template <class Kernel>
unsigned resident_blocks(Kernel* kernel, unsigned threads) {
    static std::mutex mutex;
    static std::map<std::pair<int, std::pair<const void*, unsigned>>, unsigned> known;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const auto key = std::make_pair(device, std::make_pair(reinterpret_cast<const void*>(kernel), threads));
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = known.find(key); it != known.end()) return it->second;
    }
    int most_threads = 0, per_sm = 0, sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&most_threads, cudaDevAttrMaxThreadsPerBlock, device));
    // A block size no GPU runs (0, or more than 1024 threads): one block, so
    // that the launch itself is refused and reports it as a launch error.
    if (threads == 0 || threads > static_cast<unsigned>(most_threads)) return 1;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // At least one block, so that a kernel too big to fit still gets launched
    // and its launch error reported.
    const unsigned blocks = static_cast<unsigned>(per_sm > 0 ? per_sm * sms : 1);
    std::lock_guard<std::mutex> lock(mutex);
    known[key] = blocks;
    return blocks;
}

// The grid for a grid-stride kernel with `work` items (elements, or packs) and
// `threads` threads a block: one item per thread when that takes at most
// `waves` times the blocks that fit on the GPU at once, otherwise that many
// blocks, each thread looping over several items.
//
// Which cap is fastest is measured, not guessed. A reduction wants one wave
// (waves = 1): each block leaves one partial result, so fewer blocks mean a
// smaller second pass. An elementwise kernel wants many: on an H200,
// y = x1 * x2 + B at 10^8 floats ran at 4.03 TB/s with one wave of looping
// blocks and at 4.30 TB/s with one pack per thread (92 waves): the hardware
// hands a fresh block to whichever SM finishes first, which balances the end of
// the kernel better than a fixed share per block does.
template <class Kernel>
unsigned grid_for(Kernel* kernel, std::size_t work, unsigned threads, unsigned waves = 1) {
    const std::size_t needed = course::blocks_for(work, threads);
    const std::size_t most = static_cast<std::size_t>(resident_blocks(kernel, threads)) * waves;
    return static_cast<unsigned>(needed < most ? needed : most);
}

// Device memory for `count` elements of T, for work queued on `stream`:
// allocated in stream order (cudaMallocAsync, from the current device's
// default memory pool) and freed in stream order (cudaFreeAsync) when it goes
// out of scope, after the work queued before that point. No device-wide
// synchronisation, and two calls on two streams never share it. The default
// pool hands freed memory back to the next allocation on the same stream at
// once; it returns what it holds to the system only when the program
// synchronises, and a reduction's scratch (one partial result a block) is a
// few kilobytes, so taking it afresh then costs little.
template <class T>
class stream_scratch {
public:
    stream_scratch(std::size_t count, cudaStream_t stream) : memory_(nullptr, release{stream}) {
        if (count == 0) return;
        void* raw = nullptr;
        CUDA_CHECK(cudaMallocAsync(&raw, count * sizeof(T), stream));
        memory_.reset(static_cast<T*>(raw));
    }
    T* get() const { return memory_.get(); }

private:
    struct release {
        cudaStream_t stream;
        void operator()(T* p) const noexcept { cudaFreeAsync(p, stream); }
    };
    std::unique_ptr<T, release> memory_;
};

}  // namespace lesson06
