// Going further: the wide SAXPY (see going_further.hpp).
#include "going_further.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/driver_error.hpp"
#include "driver_api.hpp"
#include "nvrtc_compile.hpp"

namespace lesson03::bench {

const char* const wide_saxpy_source = R"cuda(
// Each thread takes PACKS packs of 4 floats, blockDim.x packs apart, so that
// for every k the 32 threads of a warp read 32 neighbouring packs (512
// contiguous bytes). All 2 * PACKS loads are issued before the first store.
// The indices are 32-bit (half the instructions of 64-bit arithmetic): the
// host makes sure they cannot wrap.
extern "C" __global__ void saxpy_wide(float a, const float* __restrict__ x,
                                      const float* __restrict__ y, float* __restrict__ out,
                                      size_t n)
{
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    float4* out4 = reinterpret_cast<float4*>(out);
    const unsigned packs = static_cast<unsigned>(n / 4);
    const unsigned tile = blockDim.x * PACKS;  // packs one block covers in one step
    for (unsigned first = blockIdx.x * tile + threadIdx.x; first < packs; first += gridDim.x * tile) {
        float4 xv[PACKS], yv[PACKS];
#pragma unroll
        for (int k = 0; k < PACKS; ++k) {
            const unsigned p = first + k * blockDim.x;
            if (p < packs) {
                xv[k] = x4[p];
                yv[k] = y4[p];
            }
        }
#pragma unroll
        for (int k = 0; k < PACKS; ++k) {
            const unsigned p = first + k * blockDim.x;
            if (p < packs) {
                out4[p] = make_float4(a * xv[k].x + yv[k].x, a * xv[k].y + yv[k].y,
                                      a * xv[k].z + yv[k].z, a * xv[k].w + yv[k].w);
            }
        }
    }
    // The last n % 4 elements make no whole pack: a few threads of block 0
    // take one each.
    if (blockIdx.x == 0 && threadIdx.x < n % 4) {
        const size_t i = 4 * static_cast<size_t>(packs) + threadIdx.x;
        out[i] = a * x[i] + y[i];
    }
}
)cuda";

namespace {

std::string wide_saxpy_image(const primary_context& context, unsigned packs_per_thread) {
    // A CUBIN for this GPU's own architecture (sm_90 on an H100 or H200):
    // nothing is left for the driver to compile, and NVRTC optimises for the
    // chip that runs it. --fmad=false as in the lesson, so both kernels round
    // a * x and + y separately and give the same bits.
    const std::vector<std::string> options = {"--fmad=false", "-arch=" + context.arch(),
                                              "-DPACKS=" + std::to_string(packs_per_thread)};
    return compile_to_cubin(wide_saxpy_source, wide_saxpy_program_name, options);
}

bool aligned_16(CUdeviceptr p) { return p % 16 == 0; }

}  // namespace

wide_saxpy::wide_saxpy(const primary_context& context, unsigned packs_per_thread)
    : module_(wide_saxpy_image(context, packs_per_thread)),
      kernel_(module_.function(wide_saxpy_kernel_name)),
      packs_per_thread_(packs_per_thread) {}

void wide_saxpy::operator()(float a, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, std::size_t n,
                            CUstream stream) const {
    if (n == 0) return;  // a grid of 0 blocks is an invalid launch
    if (!aligned_16(x) || !aligned_16(y) || !aligned_16(out))
        throw std::invalid_argument("wide_saxpy: x, y and out must be 16-byte aligned for float4 accesses");
    // The kernel's 32-bit index grows to its first pack plus one grid's
    // step, less than 2 * (n / 4 + tile): below 2^30 packs it never wraps.
    const std::size_t packs = n / 4;
    if (packs >= (std::size_t{1} << 30))
        throw std::invalid_argument("wide_saxpy: n is beyond the kernel's 32-bit pack index (2^32 floats)");
    // One step of the grid covers every pack: each block does one tile and
    // leaves, and the hardware hands the next block to whichever SM is free
    // first, which balances the end of the kernel. (The grid-stride loop in
    // the kernel keeps it correct for any smaller grid too.)
    const std::size_t tile = std::size_t{threads} * packs_per_thread_;
    const unsigned blocks = static_cast<unsigned>(std::max<std::size_t>(1, (packs + tile - 1) / tile));
    void* args[] = {&a, &x, &y, &out, &n};
    CU_CHECK(driver().cuLaunchKernel(kernel_.get(), blocks, 1, 1, threads, 1, 1, 0, stream, args, nullptr));
}

}  // namespace lesson03::bench
