#pragma once
// Checked CUDA calls. Every runtime call goes through CUDA_CHECK, which turns
// a failure into a course::cuda_error that says what failed and where:
//
//   vecadd.cu:42: cudaErrorInvalidConfiguration: invalid configuration argument
//   [cudaGetLastError()]
//
// Kernel launches return nothing, so check them right after the launch with
// CUDA_CHECK(cudaGetLastError()). Driver API (CU_CHECK), NVRTC (NVRTC_CHECK)
// and cuBLAS (CUBLAS_CHECK) checks live in their own headers so that a
// program only links the libraries it really uses.
//
// The exceptions themselves are declared in course/cuda_error.hpp, for the
// code that catches them. This header stays small on purpose: every student
// file includes it, and without <string> and <stdexcept> each of those files
// compiles about a third faster (nvcc runs the headers through four tools).
#include <cuda_runtime_api.h>

namespace course {

// Called by the skeletons where a student still has work to do, like Rust's
// todo!(): throws course::not_implemented, and the grader reports what is
// unfinished. `what` names the part and its file ("lesson01::vecadd in
// exercises/01_vecadd/vecadd.cu"); the compiler fills in `line`, the line of
// the call, which the message adds to the file ("...vecadd.cu:29") so that
// the report can point at it.
[[noreturn]] void todo(const char* what, int line = __builtin_LINE());

namespace detail {
[[noreturn]] void throw_runtime_error(cudaError_t status, const char* call, const char* file,
                                      int line);

inline void check_runtime(cudaError_t status, const char* call, const char* file, int line) {
    if (status != cudaSuccess) throw_runtime_error(status, call, file, line);
}

// "path/to/vecadd.cu" -> "vecadd.cu": messages name the file, not the machine.
const char* file_name(const char* path) noexcept;
}  // namespace detail

}  // namespace course

#define CUDA_CHECK(call) ::course::detail::check_runtime((call), #call, __FILE__, __LINE__)
