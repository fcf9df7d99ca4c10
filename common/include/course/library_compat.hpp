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
#endif
