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
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace course {

// A failed CUDA call: which library, the status code and its name, the
// library's explanation, the text of the call and where it was made.
class cuda_error : public std::runtime_error {
public:
    cuda_error(std::string api, int code, std::string code_name, std::string message,
               std::string call, std::string file, int line);

    const std::string& api() const noexcept { return api_; }  // "runtime", "driver", ...
    int code() const noexcept { return code_; }
    const std::string& code_name() const noexcept { return code_name_; }
    const std::string& message() const noexcept { return message_; }
    const std::string& call() const noexcept { return call_; }
    const std::string& file() const noexcept { return file_; }
    int line() const noexcept { return line_; }

private:
    std::string api_;
    int code_;
    std::string code_name_;
    std::string message_;
    std::string call_;
    std::string file_;
    int line_;
};

// Thrown by the skeletons where a student still has work to do, like Rust's
// todo!(): the program runs, and the grader reports what is unfinished.
class not_implemented : public std::logic_error {
public:
    explicit not_implemented(const std::string& what);
};

// `what` names the part and its file ("lesson01::vecadd in
// exercises/01_vecadd/vecadd.cu"); the compiler fills in `line`, the line of
// the call, which the message adds to the file ("...vecadd.cu:29") so that
// the report can point at it.
[[noreturn]] void todo(const std::string& what, int line = __builtin_LINE());

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
