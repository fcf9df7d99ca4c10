#include "run/nvml.hpp"

#include <dlfcn.h>

namespace grader::nvml {

device library::find(const std::string& pci_bus_id) const {
    device d = nullptr;
    if (pci_bus_id.empty() || !by_bus_id || by_bus_id(pci_bus_id.c_str(), &d) != success) return nullptr;
    return d;
}

std::string library::sole_gpu_bus_id() const {
    unsigned int gpus = 0;
    device d = nullptr;
    pci_info info{};
    if (!count || !by_index || !pci || count(&gpus) != success || gpus != 1 || by_index(0, &d) != success ||
        pci(d, &info) != success)
        return {};
    info.bus_id[sizeof info.bus_id - 1] = '\0';
    return info.bus_id;
}

const library* opened() {
    // Kept open and started for the grader's life (NVML counts its starts).
    static const library* started = []() -> const library* {
        void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle) return nullptr;
        const auto init = reinterpret_cast<result (*)()>(dlsym(handle, "nvmlInit_v2"));
        if (!init || init() != success) return nullptr;
        static library l;
        l.by_bus_id = reinterpret_cast<decltype(l.by_bus_id)>(dlsym(handle, "nvmlDeviceGetHandleByPciBusId_v2"));
        l.count = reinterpret_cast<decltype(l.count)>(dlsym(handle, "nvmlDeviceGetCount_v2"));
        l.by_index = reinterpret_cast<decltype(l.by_index)>(dlsym(handle, "nvmlDeviceGetHandleByIndex_v2"));
        l.pci = reinterpret_cast<decltype(l.pci)>(dlsym(handle, "nvmlDeviceGetPciInfo_v3"));
        l.memory_info = reinterpret_cast<decltype(l.memory_info)>(dlsym(handle, "nvmlDeviceGetMemoryInfo"));
        l.compute_processes = reinterpret_cast<decltype(l.compute_processes)>(
            dlsym(handle, "nvmlDeviceGetComputeRunningProcesses_v3"));
        return &l;
    }();
    return started;
}

}  // namespace grader::nvml
