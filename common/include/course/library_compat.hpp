#pragma once
// The runtime's library API (cudaLibraryLoadData, cudaLibraryGetKernel,
// cudaLibraryUnload) came with CUDA 12.5. CUDA 12.0 to 12.4 have the same API
// in the driver only (cuLibrary*), with the same handles: cudaKernel_t is
// CUkernel. Before 12.5 these inline twins reach the driver's functions
// through the runtime (course::driver_entry_point), so nothing links libcuda.
#include <cuda_runtime_api.h>

#include "course/driver_entry_point.hpp"

#if CUDART_VERSION < 12050
#include <cuda.h>  // the driver's types only: nothing links libcuda

using cudaLibrary_t = CUlibrary;

namespace course::detail {
template <class Fn>
cudaError_t library_entry(const char* symbol, Fn& fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t status = course::driver_entry_point(symbol, &p, &found);
    if (status != cudaSuccess) return status;
    if (found != cudaDriverEntryPointSuccess || p == nullptr) return cudaErrorSymbolNotFound;
    fn = reinterpret_cast<Fn>(p);
    return cudaSuccess;
}
}  // namespace course::detail

// The course passes no JIT or library options (nullptr, 0): none are passed on.
inline cudaError_t cudaLibraryLoadData(cudaLibrary_t* library, const void* code, void*, void**,
                                       unsigned int, void*, void**, unsigned int) {
    decltype(&::cuLibraryLoadData) fn = nullptr;
    if (const cudaError_t s = course::detail::library_entry("cuLibraryLoadData", fn); s != cudaSuccess) return s;
    return static_cast<cudaError_t>(fn(library, code, nullptr, nullptr, 0, nullptr, nullptr, 0));
}
inline cudaError_t cudaLibraryGetKernel(cudaKernel_t* kernel, cudaLibrary_t library, const char* name) {
    decltype(&::cuLibraryGetKernel) fn = nullptr;
    if (const cudaError_t s = course::detail::library_entry("cuLibraryGetKernel", fn); s != cudaSuccess) return s;
    return static_cast<cudaError_t>(fn(kernel, library, name));
}
inline cudaError_t cudaLibraryUnload(cudaLibrary_t library) {
    decltype(&::cuLibraryUnload) fn = nullptr;
    if (const cudaError_t s = course::detail::library_entry("cuLibraryUnload", fn); s != cudaSuccess) return s;
    return static_cast<cudaError_t>(fn(library));
}

// Before 12.5 the runtime's cudaLaunchKernel knows only its own kernels and
// refuses a library's (cudaErrorInvalidDeviceFunction). Given a cudaKernel_t
// itself (not cast to const void*), this overload is chosen instead: it
// launches the kernel's function in the runtime's context through the
// driver. The driver's status codes are the runtime's for the same errors
// (CUDA_ERROR_INVALID_VALUE is cudaErrorInvalidValue, and so on).
inline cudaError_t cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                    size_t shared_bytes, cudaStream_t stream) {
    decltype(&::cuKernelGetFunction) get_function = nullptr;
    decltype(&::cuLaunchKernel) launch = nullptr;
    if (const cudaError_t s = course::detail::library_entry("cuKernelGetFunction", get_function); s != cudaSuccess)
        return s;
    if (const cudaError_t s = course::detail::library_entry("cuLaunchKernel", launch); s != cudaSuccess) return s;
    // The runtime makes its primary context current on this thread (a no-op
    // once it is): the function is looked up in that context.
    if (const cudaError_t s = cudaFree(nullptr); s != cudaSuccess) return s;
    CUfunction function = nullptr;
    if (const CUresult r = get_function(&function, kernel); r != CUDA_SUCCESS) return static_cast<cudaError_t>(r);
    return static_cast<cudaError_t>(launch(function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                           static_cast<unsigned>(shared_bytes), stream, args, nullptr));
}
#endif
