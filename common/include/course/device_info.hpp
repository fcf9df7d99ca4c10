#pragma once
// What GPU is here, and what can it do? has_device() answers "is there one at
// all", with the reason when not, so that tests can skip honestly on machines
// without a GPU.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace course {

struct device_presence {
    bool available = false;
    int count = 0;
    std::string reason;  // why not, when !available: the status and what it usually means
    std::string status;  // cudaGetDeviceCount's error name when it failed ("cudaErrorNoDevice")
    std::string meaning; // and what that usually means
};

// Asks cudaGetDeviceCount once and remembers the answer.
const device_presence& device_status();
inline bool has_device() { return device_status().available; }

struct device_properties {
    int ordinal = 0;
    std::string name;
    int major = 0, minor = 0;  // compute capability
    int sm_count = 0;
    std::size_t l2_bytes = 0;
    std::size_t global_memory_bytes = 0;
    int copy_engines = 0;     // asyncEngineCount: copies that can overlap kernels
    int max_threads_per_block = 0;
    int memory_clock_khz = 0;  // CUDA 13: from cudaDevAttrMemoryClockRate
    int memory_bus_bits = 0;
    int driver_version = 0, runtime_version = 0;

    // DRAM peak from clock and bus width (double data rate), in GB/s (10^9).
    double peak_bandwidth_gbps() const;
    std::string arch() const { return "sm_" + std::to_string(major) + std::to_string(minor); }
    std::string summary() const;  // "NVIDIA H200 (sm_90)"
};

device_properties query_device(int ordinal = 0);

// Device-to-device cudaMemcpy bandwidth on the current device, counting the
// bytes read and written (2 x size), as GB/s: the practical ceiling for a
// memory-bound kernel on this GPU.
double measured_copy_bandwidth_gbps(std::size_t bytes = std::size_t{1} << 30);

// "13.0" from 13000.
std::string cuda_version_string(int version);

}  // namespace course
