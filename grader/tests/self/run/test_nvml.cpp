// The GPU's bus id from the driver's management library, where only one GPU
// can be the one the tests see (grade.cpp starts the tests on it without
// waiting for the CUDA runtime). Made-up entry points stand in for the
// driver's, as nvml.hpp declares them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "run/nvml.hpp"

namespace {
using grader::nvml::device;
using grader::nvml::pci_info;
using grader::nvml::result;
using grader::nvml::success;

unsigned int gpus_shown = 1;
result count(unsigned int* n) {
    *n = gpus_shown;
    return success;
}
result by_index(unsigned int index, device* d) {
    if (index >= gpus_shown) return 2;  // NVML_ERROR_INVALID_ARGUMENT
    *d = reinterpret_cast<device>(static_cast<std::uintptr_t>(index + 1));
    return success;
}
result pci(device, pci_info* info) {
    std::memset(info, 0, sizeof *info);
    std::strcpy(info->bus_id, "00000000:3B:00.0");
    return success;
}

grader::nvml::library with_all_three() {
    grader::nvml::library l;
    l.count = count;
    l.by_index = by_index;
    l.pci = pci;
    return l;
}
}  // namespace

TEST(Nvml, TheSoleGpusBusIdIsItsPciBusId) {
    gpus_shown = 1;
    EXPECT_EQ(with_all_three().sole_gpu_bus_id(), "00000000:3B:00.0");
}

TEST(Nvml, WithSeveralGpusOrNoneThereIsNoSoleOne) {
    gpus_shown = 2;
    EXPECT_EQ(with_all_three().sole_gpu_bus_id(), "");
    gpus_shown = 0;
    EXPECT_EQ(with_all_three().sole_gpu_bus_id(), "");
    gpus_shown = 1;
}

TEST(Nvml, ADriverWithoutTheEntryPointsGivesNone) {
    grader::nvml::library l = with_all_three();
    l.pci = nullptr;
    EXPECT_EQ(l.sole_gpu_bus_id(), "");
    EXPECT_EQ(grader::nvml::library{}.sole_gpu_bus_id(), "");
}
