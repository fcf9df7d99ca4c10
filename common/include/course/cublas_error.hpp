#pragma once
// CUBLAS_CHECK: turns a cublasStatus_t into a course::cuda_error. Header-only
// so that only programs that use cuBLAS link it.
#include <cublas_v2.h>

#include "course/cuda_error.hpp"

namespace course::detail {
inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw cuda_error("cublas", static_cast<int>(status), cublasGetStatusName(status),
                     cublasGetStatusString(status), call, file_name(file), line);
}
}  // namespace course::detail

#define CUBLAS_CHECK(call) ::course::detail::check_cublas((call), #call, __FILE__, __LINE__)
