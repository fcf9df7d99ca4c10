#pragma once
// NVRTC_CHECK: turns an nvrtcResult into a course::cuda_error. Header-only so
// that only programs that use NVRTC link libnvrtc.
#include <nvrtc.h>

#include "course/cuda_error.hpp"

namespace course::detail {
inline void check_nvrtc(nvrtcResult status, const char* call, const char* file, int line) {
    if (status == NVRTC_SUCCESS) return;
    const char* text = nvrtcGetErrorString(status);
    throw cuda_error("nvrtc", static_cast<int>(status), text, text, call, file_name(file), line);
}
}  // namespace course::detail

#define NVRTC_CHECK(call) ::course::detail::check_nvrtc((call), #call, __FILE__, __LINE__)
