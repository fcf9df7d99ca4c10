#pragma once
// A CUDA driver function, found through the runtime so that nothing links
// libcuda (a program still starts on a machine without a driver). One place
// for the difference between toolkits: from CUDA 12.5 the function is asked
// for with the ABI of CUDA 12.0, which cuda.h declares from 12.0 on; before
// 12.5 the runtime has no such call and gives the ABI of its own version.
// A function added later is asked for with the version that added it
// (`since`, 12040 for CUDA 12.4).
#include <cuda_runtime_api.h>

namespace course {

inline cudaError_t driver_entry_point(const char* symbol, void** fn, cudaDriverEntryPointQueryResult* found,
                                      [[maybe_unused]] unsigned since = 12000) {
#if CUDART_VERSION >= 12050
    return cudaGetDriverEntryPointByVersion(symbol, fn, since, cudaEnableDefault, found);
#else
    return cudaGetDriverEntryPoint(symbol, fn, cudaEnableDefault, found);
#endif
}

}  // namespace course
