#pragma once
// Where each parameter of a kernel lies in its arguments' bytes, as the
// driver says (cuFuncGetParamInfo, or cuKernelGetParamInfo for the CUkernel
// handles the runtime launches with). The grader's recorder reads it in the
// student's process to write a launch's argument bytes, and the judge in its
// own to check that those bytes fit the kernel it replays (call_replay.hpp).
// Header only: the recorder calls the driver directly, the judge through the
// runtime's entry points, so each passes its own function.
#include <cuda.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace course::testing {

// (offset, size) of each parameter, in order.
using param_layout = std::vector<std::pair<std::size_t, std::size_t>>;

// A kernel's parameters fit in 32 KiB, a byte each at least.
inline constexpr std::size_t largest_param_bytes = 32 * 1024;

// Fills `layout`; returns CUDA_SUCCESS once past the last parameter, the
// driver's error where not even the first could be read (a kernel that takes
// none gives CUDA_ERROR_INVALID_VALUE too), and CUDA_ERROR_INVALID_VALUE where
// a parameter lies past 32 KiB (the layout read so far is kept).
template <class Handle>
CUresult read_param_layout(CUresult (*info)(Handle, std::size_t, std::size_t*, std::size_t*), Handle handle,
                           param_layout& layout) {
    layout.clear();
    for (std::size_t i = 0; i < largest_param_bytes; ++i) {
        std::size_t offset = 0, size = 0;
        const CUresult r = info(handle, i, &offset, &size);
        if (r != CUDA_SUCCESS) return i == 0 ? r : CUDA_SUCCESS;  // past the last parameter
        if (offset + size > largest_param_bytes) return CUDA_ERROR_INVALID_VALUE;
        layout.emplace_back(offset, size);
    }
    return CUDA_ERROR_INVALID_VALUE;
}

// The bytes a kernel's arguments take (the end of its last parameter).
inline std::size_t argument_bytes(const param_layout& layout) {
    std::size_t end = 0;
    for (const auto& [offset, size] : layout) end = offset + size > end ? offset + size : end;
    return end;
}

}  // namespace course::testing
