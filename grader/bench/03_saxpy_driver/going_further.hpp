#pragma once
// Going further: a SAXPY that moves memory at nearly the speed of a copy,
// still compiled by NVRTC and launched with cuLaunchKernel through the
// lesson's own handles (primary_context, loaded_module, kernel_function).
//
// The lesson's kernel gives each thread one element: two 4-byte loads in
// flight, then a store. With at most 2048 threads on an SM that is 16 KB of
// loads in flight per SM, less than the memory system needs to stay busy
// (bandwidth times latency, shared among the SMs), so it runs at about 70% of
// the copy bandwidth. This one moves 16-byte packs (float4): with one pack of
// x and one of y per thread that is already 64 KB per SM, four times as
// much. PACKS > 1 gives each thread several packs, all loads issued before
// the first store. The rest is small: 32-bit indices, a grid that covers the
// array once, and a CUBIN for the GPU that is really here.
#include <cuda.h>

#include <cstddef>

#include "saxpy_driver.hpp"

namespace lesson03::bench {

// The kernel, compiled at run time like lesson03::saxpy_source. PACKS (16-byte
// packs per thread and step) comes from the compile options, as -DPACKS=4.
extern const char* const wide_saxpy_source;
inline constexpr const char* wide_saxpy_program_name = "saxpy_wide.cu";
inline constexpr const char* wide_saxpy_kernel_name = "saxpy_wide";

class wide_saxpy {
public:
    // Compiles the kernel with NVRTC into a CUBIN for `context`'s GPU (its own
    // sm_XY, --fmad=false like the lesson's), with `packs_per_thread` packs
    // of 4 floats per thread and step, and loads it.
    wide_saxpy(const primary_context& context, unsigned packs_per_thread);

    // Queues out[i] = a * x[i] + y[i] for i < n on `stream` (cuLaunchKernel)
    // and returns. x, y and out must be 16-byte aligned (cuMemAlloc's and
    // cudaMalloc's are); throws std::invalid_argument otherwise, or when n is
    // beyond the 32-bit pack index (2^32 floats). n == 0 launches nothing.
    void operator()(float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, std::size_t n,
                    CUstream stream) const;

    static constexpr unsigned threads = 256;  // per block

private:
    loaded_module module_;
    kernel_function kernel_;
    unsigned packs_per_thread_;
};

}  // namespace lesson03::bench
