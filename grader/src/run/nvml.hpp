#pragma once
// The driver's management library (NVML), opened and started once for the
// grader's life: starting it takes tens of milliseconds, too long to do at
// each timed test. The header is not in every toolkit and the library comes
// with the driver, so the few declarations used are written here as nvml.h
// gives them, and the library is opened at run time. Each entry point may be
// missing (an older driver): its user checks it.
#include <string>

namespace grader::nvml {

using device = struct device_opaque*;
using result = int;  // 0: NVML_SUCCESS
inline constexpr result success = 0;
inline constexpr result insufficient_size = 7;

struct memory {  // nvmlMemory_t
    unsigned long long total, free, used;
};
struct process_info {  // nvmlProcessInfo_t of the _v3 calls
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};

struct pci_info {  // nvmlPciInfo_t
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_sub_system_id;
    char bus_id[32];
};

struct library {
    result (*by_bus_id)(const char*, device*) = nullptr;                             // nvmlDeviceGetHandleByPciBusId_v2
    result (*count)(unsigned int*) = nullptr;                                        // nvmlDeviceGetCount_v2
    result (*by_index)(unsigned int, device*) = nullptr;                             // nvmlDeviceGetHandleByIndex_v2
    result (*pci)(device, pci_info*) = nullptr;                                      // nvmlDeviceGetPciInfo_v3
    result (*memory_info)(device, memory*) = nullptr;                                // nvmlDeviceGetMemoryInfo
    result (*compute_processes)(device, unsigned int*, process_info*) = nullptr;     // nvmlDeviceGetComputeRunningProcesses_v3

    // The GPU with this PCI bus id ("0000:3B:00.0"); nullptr where NVML does not know it.
    device find(const std::string& pci_bus_id) const;
    // The PCI bus id of the only GPU the driver shows this process; empty
    // where it shows none or several.
    std::string sole_gpu_bus_id() const;
};

// NVML started, or nullptr where there is no driver.
const library* opened();

}  // namespace grader::nvml
