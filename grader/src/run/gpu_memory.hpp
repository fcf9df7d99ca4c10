#pragma once
// How much memory the GPU has free, asked of the driver's management library
// (NVML) rather than of CUDA: cudaMemGetInfo would give the grader a CUDA
// context of its own, which takes time and holds memory while the student's
// program and the judge run.
//
// The grader measures it once, before a lesson's tests start, and hands the
// figure to the student's program and the judge alike
// (course::testing::gpu_memory_budget_variable): the speed tests size their
// arrays from it, so both processes pick the same size even where the GPU is
// too small to reach the tests' caps, and even though they run side by side.
#include <cstddef>
#include <optional>
#include <string>

namespace grader {

// Free bytes on the GPU with this PCI bus id ("0000:3B:00.0"), or nothing
// where NVML is missing (no driver) or does not know the device.
std::optional<std::size_t> free_gpu_memory(const std::string& pci_bus_id);

}  // namespace grader
