#pragma once
// A CUDA driver function, found through the runtime (driver_entry_point.hpp)
// so that no test program links libcuda: each starts on a machine without a
// driver and says so. Throws where the driver has no such function. Private
// to course::testing (guard_paged.cpp, student_modules.cpp).
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "course/driver_entry_point.hpp"
#include "course/error.hpp"

namespace course::testing::detail {

// `since`: the CUDA version that added the function (12040 for 12.4).
template <class Fn>
Fn driver_function(const char* symbol, unsigned since = 12000) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(course::driver_entry_point(symbol, &fn, &found, since));
    if (found != cudaDriverEntryPointSuccess || fn == nullptr)
        throw std::runtime_error(std::string("the CUDA driver has no ") + symbol);
    return reinterpret_cast<Fn>(fn);
}

}  // namespace course::testing::detail
