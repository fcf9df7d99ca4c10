#include "run/gpu_memory.hpp"

#include "run/nvml.hpp"

namespace grader {

std::optional<std::size_t> free_gpu_memory(const std::string& pci_bus_id) {
    const nvml::library* n = nvml::opened();
    if (!n || !n->memory_info) return std::nullopt;
    const nvml::device device = n->find(pci_bus_id);
    nvml::memory memory{};
    if (!device || n->memory_info(device, &memory) != nvml::success) return std::nullopt;
    return static_cast<std::size_t>(memory.free);
}

}  // namespace grader
