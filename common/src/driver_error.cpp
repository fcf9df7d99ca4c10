#include "course/driver_error.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "course/driver_entry_point.hpp"

namespace course::detail {

namespace {
using error_text_fn = CUresult (*)(CUresult, const char**);

// Finds cuGetErrorName / cuGetErrorString inside the already-loaded driver
// through the runtime, instead of linking libcuda (see driver_error.hpp).
const char* driver_text(const char* symbol, CUresult status) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (course::driver_entry_point(symbol, &fn, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || fn == nullptr) {
        return nullptr;
    }
    const char* text = nullptr;
    if (reinterpret_cast<error_text_fn>(fn)(status, &text) != CUDA_SUCCESS) return nullptr;
    return text;
}
}  // namespace

void throw_driver_error(CUresult status, const char* call, const char* file, int line) {
    const char* name = driver_text("cuGetErrorName", status);
    const char* text = driver_text("cuGetErrorString", status);
    const std::string code = std::to_string(static_cast<int>(status));
    throw cuda_error("driver", static_cast<int>(status), name ? name : "CUresult " + code,
                     text ? text : "driver error " + code, call, file_name(file), line);
}

}  // namespace course::detail
