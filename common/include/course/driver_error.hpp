#pragma once
// CU_CHECK: the driver API's twin of CUDA_CHECK. Including this header does
// not link libcuda: the error's name and text are looked up through the
// runtime at the moment of failure, so programs still start on machines that
// have no NVIDIA driver.
#include <cuda.h>

#include "course/cuda_error.hpp"

namespace course::detail {
[[noreturn]] void throw_driver_error(CUresult status, const char* call, const char* file, int line);

inline void check_driver(CUresult status, const char* call, const char* file, int line) {
    if (status != CUDA_SUCCESS) throw_driver_error(status, call, file, line);
}
}  // namespace course::detail

#define CU_CHECK(call) ::course::detail::check_driver((call), #call, __FILE__, __LINE__)
