#include "run/gpu_memory.hpp"

#include <dlfcn.h>

#include <memory>

namespace grader {

namespace {

// The few NVML declarations used, as nvml.h gives them (the header is not in
// every toolkit, and the library comes with the driver, not the toolkit).
struct nvml_memory {
    unsigned long long total, free, used;
};
using nvml_device = struct nvml_device_opaque*;
using nvml_return = int;  // 0: NVML_SUCCESS

struct close_library {
    void operator()(void* handle) const noexcept { dlclose(handle); }
};

}  // namespace

std::optional<std::size_t> free_gpu_memory(const std::string& pci_bus_id) {
    if (pci_bus_id.empty()) return std::nullopt;
    const std::unique_ptr<void, close_library> library(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL));
    if (!library) return std::nullopt;
    const auto symbol = [&](const char* name) { return dlsym(library.get(), name); };
    const auto init = reinterpret_cast<nvml_return (*)()>(symbol("nvmlInit_v2"));
    const auto shutdown = reinterpret_cast<nvml_return (*)()>(symbol("nvmlShutdown"));
    const auto by_bus_id =
        reinterpret_cast<nvml_return (*)(const char*, nvml_device*)>(symbol("nvmlDeviceGetHandleByPciBusId_v2"));
    const auto memory_info = reinterpret_cast<nvml_return (*)(nvml_device, nvml_memory*)>(symbol("nvmlDeviceGetMemoryInfo"));
    if (!init || !shutdown || !by_bus_id || !memory_info || init() != 0) return std::nullopt;
    nvml_device device = nullptr;
    nvml_memory memory{};
    const bool known = by_bus_id(pci_bus_id.c_str(), &device) == 0 && memory_info(device, &memory) == 0;
    shutdown();
    if (!known) return std::nullopt;
    return static_cast<std::size_t>(memory.free);
}

}  // namespace grader
