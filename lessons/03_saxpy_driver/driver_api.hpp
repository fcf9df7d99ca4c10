#pragma once
// The driver API without linking libcuda (given; nothing to do here).
//
// libcuda.so comes with the NVIDIA driver, not with the CUDA toolkit. A
// program linked against it (-lcuda) cannot even start on a machine that has
// no driver: the loader stops it before main(). The runtime (libcudart) is
// different: it opens the driver only when it is first used, and reports a
// missing driver as an error code. So this lesson asks the runtime for the
// driver's functions, one by one, with cudaGetDriverEntryPointByVersion, and
// keeps the pointers in a table:
//
//   const lesson03::driver_api& cu = lesson03::driver();
//   CU_CHECK(cu.cuInit(0));
//
// Each member has exactly the type of the function in cuda.h, so a call looks
// and is checked like a direct call. On a machine with no driver, driver()
// throws a course::cuda_error that says so, and nothing else is affected.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

#include "course/cuda_error.hpp"

namespace lesson03 {

// cuda.h renames some functions with macros (cuMemAlloc is really
// cuMemAlloc_v2). The members below are renamed by the same macros, so
// `cu.cuMemAlloc(...)` calls the function `cuMemAlloc` means in cuda.h.
struct driver_api {
    decltype(&::cuInit) cuInit;
    decltype(&::cuDeviceGet) cuDeviceGet;
    decltype(&::cuDeviceGetAttribute) cuDeviceGetAttribute;
    decltype(&::cuDevicePrimaryCtxRetain) cuDevicePrimaryCtxRetain;
    decltype(&::cuDevicePrimaryCtxRelease) cuDevicePrimaryCtxRelease;
    decltype(&::cuCtxPushCurrent) cuCtxPushCurrent;
    decltype(&::cuCtxPopCurrent) cuCtxPopCurrent;
    decltype(&::cuCtxGetCurrent) cuCtxGetCurrent;
    decltype(&::cuModuleLoadData) cuModuleLoadData;
    decltype(&::cuModuleUnload) cuModuleUnload;
    decltype(&::cuModuleGetFunction) cuModuleGetFunction;
    decltype(&::cuMemAlloc) cuMemAlloc;
    decltype(&::cuMemFree) cuMemFree;
    decltype(&::cuMemGetInfo) cuMemGetInfo;
    decltype(&::cuMemcpyHtoDAsync) cuMemcpyHtoDAsync;
    decltype(&::cuMemcpyDtoHAsync) cuMemcpyDtoHAsync;
    decltype(&::cuStreamCreate) cuStreamCreate;
    decltype(&::cuStreamDestroy) cuStreamDestroy;
    decltype(&::cuStreamSynchronize) cuStreamSynchronize;
    decltype(&::cuLaunchKernel) cuLaunchKernel;
};

namespace detail {

// The ABI the pointers are asked for. Every function above has had its
// present signature since CUDA 12.0 or earlier, so 12.0 matches cuda.h and
// works with every 12.x and 13.x driver. (cuCtxCreate is not in the table: its
// signature changed in CUDA 13, one more reason to use the primary context.)
inline constexpr unsigned driver_abi_version = 12000;

template <class Fn>
void load_entry_point(Fn& slot, const char* symbol) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t status =
        cudaGetDriverEntryPointByVersion(symbol, &fn, driver_abi_version, cudaEnableDefault, &found);
#else  // before 12.5: the entry point of this runtime's version, the one cuda.h declares
    const cudaError_t status = cudaGetDriverEntryPoint(symbol, &fn, cudaEnableDefault, &found);
#endif
    if (status != cudaSuccess) {
        // cudaErrorInsufficientDriver is what a machine without a driver says.
        throw course::cuda_error(
            "runtime", static_cast<int>(status), cudaGetErrorName(status),
            std::string("no NVIDIA driver can be used here (") + cudaGetErrorString(status) +
                "), so the driver API is unavailable; this program needs an NVIDIA GPU and its driver",
            std::string("cudaGetDriverEntryPointByVersion(\"") + symbol + "\")", "driver_api.hpp",
            __LINE__);
    }
    if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
        throw course::cuda_error("runtime", static_cast<int>(cudaErrorSymbolNotFound),
                                 "cudaErrorSymbolNotFound",
                                 std::string("the NVIDIA driver has no ") + symbol +
                                     " for CUDA 12.0: the driver is too old for this course",
                                 std::string("cudaGetDriverEntryPointByVersion(\"") + symbol + "\")",
                                 "driver_api.hpp", __LINE__);
    }
    slot = reinterpret_cast<Fn>(fn);
}

inline driver_api load_driver_api() {
    driver_api api{};
    // #name keeps the name as written ("cuMemAlloc", which is what the lookup
    // wants); api.name is expanded like the member declarations above.
#define LESSON03_LOAD(name) load_entry_point(api.name, #name)
    LESSON03_LOAD(cuInit);
    LESSON03_LOAD(cuDeviceGet);
    LESSON03_LOAD(cuDeviceGetAttribute);
    LESSON03_LOAD(cuDevicePrimaryCtxRetain);
    LESSON03_LOAD(cuDevicePrimaryCtxRelease);
    LESSON03_LOAD(cuCtxPushCurrent);
    LESSON03_LOAD(cuCtxPopCurrent);
    LESSON03_LOAD(cuCtxGetCurrent);
    LESSON03_LOAD(cuModuleLoadData);
    LESSON03_LOAD(cuModuleUnload);
    LESSON03_LOAD(cuModuleGetFunction);
    LESSON03_LOAD(cuMemAlloc);
    LESSON03_LOAD(cuMemFree);
    LESSON03_LOAD(cuMemGetInfo);
    LESSON03_LOAD(cuMemcpyHtoDAsync);
    LESSON03_LOAD(cuMemcpyDtoHAsync);
    LESSON03_LOAD(cuStreamCreate);
    LESSON03_LOAD(cuStreamDestroy);
    LESSON03_LOAD(cuStreamSynchronize);
    LESSON03_LOAD(cuLaunchKernel);
#undef LESSON03_LOAD
    return api;
}

}  // namespace detail

// The table, filled on first use (thread-safe: a function-local static).
// Throws course::cuda_error when there is no usable driver; a later call
// tries again.
inline const driver_api& driver() {
    static const driver_api api = detail::load_driver_api();
    return api;
}

}  // namespace lesson03
