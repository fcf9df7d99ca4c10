#pragma once
// Lesson 03 contract, part 2: running a kernel through the driver API.
// Implemented in exercises/03_saxpy_driver/saxpy_driver.cpp.
//
// Every driver call goes through the table in driver_api.hpp
// (`lesson03::driver().cuMemAlloc(...)`) and is checked with CU_CHECK, which
// throws course::cuda_error with the driver's error name and message:
//
//   saxpy_driver.cpp:88: CUDA_ERROR_INVALID_VALUE: invalid argument [cu.cuMemAlloc(&raw, bytes)]
//
// Each handle type owns one driver object and releases it in its destructor,
// through a std::unique_ptr with a deleter (rule of zero: no hand-written
// destructor, copy or move). Destructors never throw.
#include <cuda.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nvrtc_compile.hpp"

namespace lesson03 {

// The kernel, as the program ships it: a string that NVRTC compiles at run
// time. extern "C" keeps its name "saxpy" in the compiled code; without it
// the C++ name would be mangled (_Z5saxpyfPKfS0_Pfm) and "saxpy" not found.
inline constexpr const char* saxpy_source = R"cuda(
extern "C" __global__
void saxpy(float a, const float* x, const float* y, float* out, size_t n)
{
    size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + y[i];
    }
}
)cuda";
inline constexpr const char* saxpy_program_name = "saxpy.cu";
inline constexpr const char* saxpy_kernel_name = "saxpy";

// --- Step 2: handles ---------------------------------------------------------

// The primary context of device `ordinal`, made current on this thread.
// Constructor: cuInit, cuDeviceGet, the compute capability
// (cuDeviceGetAttribute), cuDevicePrimaryCtxRetain, cuCtxPushCurrent.
// Destructor: cuCtxPopCurrent, cuDevicePrimaryCtxRelease. Use it on the
// thread that made it: the current context is a per-thread setting.
// The primary context is the one the runtime API uses too: memory and
// modules are shared with runtime code, and the device has one such context
// however many times it is retained.
class primary_context {
public:
    explicit primary_context(int ordinal = 0);

    CUcontext get() const noexcept { return retained_.get(); }
    CUdevice device() const noexcept { return retained_.get_deleter().device; }
    int major() const noexcept { return major_; }
    int minor() const noexcept { return minor_; }
    // "sm_90": the real architecture, for CUBIN.
    std::string arch() const { return "sm_" + std::to_string(major_) + std::to_string(minor_); }
    // "compute_90": the virtual architecture, for PTX.
    std::string virtual_arch() const {
        return "compute_" + std::to_string(major_) + std::to_string(minor_);
    }

private:
    struct release {  // cuDevicePrimaryCtxRelease: gives back the reference
        // Set by the constructor. (A default member initializer here would keep
        // unique_ptr from default-constructing this deleter.)
        CUdevice device;
        void operator()(CUcontext context) const noexcept;
    };
    struct pop {  // cuCtxPopCurrent: this thread's current context is what it was before
        void operator()(CUcontext context) const noexcept;
    };
    // Two owners for two obligations. Members are destroyed in reverse
    // order, so the context is popped first and released second, and if the
    // push fails in the constructor, the retained reference is still released.
    std::unique_ptr<CUctx_st, release> retained_;
    std::unique_ptr<CUctx_st, pop> current_;
    int major_ = 0, minor_ = 0;
};

// A kernel inside a loaded module. It owns nothing: a CUfunction is valid as
// long as its module stays loaded, so keep the loaded_module alive while you
// launch (given).
class kernel_function {
public:
    explicit kernel_function(CUfunction function) noexcept : function_(function) {}
    CUfunction get() const noexcept { return function_; }

private:
    CUfunction function_;
};

// Compiled code loaded into the current context: cuModuleLoadData on a PTX
// text (the driver compiles it for this GPU) or a CUBIN. Destructor:
// cuModuleUnload.
class loaded_module {
public:
    explicit loaded_module(const std::string& image);

    CUmodule get() const noexcept { return module_.get(); }

    // The kernel called `name` (cuModuleGetFunction). When there is none,
    // throws course::cuda_error with code CUDA_ERROR_NOT_FOUND whose message
    // names the kernel that was asked for.
    kernel_function function(const std::string& name) const;

private:
    struct unload {
        void operator()(CUmodule module) const noexcept;
    };
    std::unique_ptr<CUmod_st, unload> module_;
};

// `bytes` bytes of device memory (cuMemAlloc), freed by the destructor
// (cuMemFree). Zero bytes allocate nothing and get() is 0.
class device_buffer {
public:
    device_buffer() = default;
    explicit device_buffer(std::size_t bytes);

    // A CUdeviceptr is an integer, not a pointer, and std::unique_ptr can only
    // hold pointers: the address is kept as a void* and converted here.
    CUdeviceptr get() const noexcept { return reinterpret_cast<CUdeviceptr>(memory_.get()); }
    std::size_t bytes() const noexcept { return bytes_; }

private:
    struct free_memory {
        void operator()(void* address) const noexcept;
    };
    std::unique_ptr<void, free_memory> memory_;
    std::size_t bytes_ = 0;
};

// A stream created with cuStreamCreate(CU_STREAM_NON_BLOCKING), destroyed by
// the destructor (cuStreamDestroy). CUstream and cudaStream_t are the same
// type, so a driver_stream's get() can be given to runtime calls too.
class driver_stream {
public:
    driver_stream();

    CUstream get() const noexcept { return stream_.get(); }
    void synchronize() const;  // cuStreamSynchronize

private:
    struct destroy {
        void operator()(CUstream stream) const noexcept;
    };
    std::unique_ptr<std::remove_pointer_t<CUstream>, destroy> stream_;
};

// --- Step 3: launch ------------------------------------------------------------

// Queues saxpy on `stream`: out[i] = a * x[i] + y[i] for i < n, with
// `threads_per_block` threads in each block and enough blocks to cover n
// (cuLaunchKernel). Returns without waiting. n == 0 launches nothing. A launch
// the driver refuses throws course::cuda_error.
void launch_saxpy(const kernel_function& saxpy, float a, CUdeviceptr x, CUdeviceptr y,
                  CUdeviceptr out, std::size_t n, unsigned threads_per_block, CUstream stream);

// --- Step 4: the whole program -------------------------------------------------

struct saxpy_options {
    unsigned threads_per_block = 512;  // the seed's NUM_THREADS
    int device = 0;
    // Where compiled kernels are kept: CUBIN for this GPU, through
    // kernel_cache. Empty: no cache; NVRTC compiles PTX on every call, as the
    // seed does.
    std::filesystem::path cache_dir = default_kernel_cache_dir();
};

// out = a * x + y, the whole path by hand: context, compile (PTX for this
// GPU's compute capability, or a cached CUBIN), module, function, three
// device buffers, a stream, copies in, launch, copy out, synchronise; every
// resource released when it returns or throws.
// The arguments are checked before anything touches the GPU: empty x and y
// give an empty result, x and y of different lengths throw
// std::invalid_argument. A failing driver or NVRTC call throws
// course::cuda_error.
std::vector<float> saxpy_driver(float a, const std::vector<float>& x, const std::vector<float>& y,
                                const saxpy_options& options = {});

}  // namespace lesson03
