#include "run/gpu_helpers.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "system/process_tree.hpp"

namespace grader {

namespace {

// The few NVML declarations used, as nvml.h gives them (the library comes
// with the driver, not the toolkit). nvmlProcessInfo_t of the _v3 call.
using nvml_device = struct nvml_device_opaque*;
using nvml_return = int;  // 0: NVML_SUCCESS
constexpr nvml_return nvml_insufficient_size = 7;
struct nvml_process_info {
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};

// NVML, opened and started once for the grader's life: starting it takes
// tens of milliseconds, too long to do at each timed test.
struct nvml {
    nvml_return (*by_bus_id)(const char*, nvml_device*) = nullptr;
    nvml_return (*compute_processes)(nvml_device, unsigned int*, nvml_process_info*) = nullptr;

    static const nvml* get() {
        static const nvml* opened = []() -> const nvml* {
            void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
            if (!library) return nullptr;
            const auto init = reinterpret_cast<nvml_return (*)()>(dlsym(library, "nvmlInit_v2"));
            static nvml n;
            n.by_bus_id = reinterpret_cast<decltype(n.by_bus_id)>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
            n.compute_processes = reinterpret_cast<decltype(n.compute_processes)>(
                dlsym(library, "nvmlDeviceGetComputeRunningProcesses_v3"));
            if (!init || !n.by_bus_id || !n.compute_processes || init() != 0) return nullptr;
            return &n;
        }();
        return opened;
    }
};

std::string process_name(int pid) {
    std::ifstream comm(fmt::format("/proc/{}/comm", pid));
    std::string name;
    std::getline(comm, name);
    return name.empty() ? "?" : name;
}

}  // namespace

std::vector<int> gpu_context_holders(const std::string& pci_bus_id) {
    const nvml* n = nvml::get();
    nvml_device device = nullptr;
    if (!n || pci_bus_id.empty() || n->by_bus_id(pci_bus_id.c_str(), &device) != 0) return {};
    std::vector<nvml_process_info> infos(16);
    for (int attempt = 0; attempt < 4; ++attempt) {
        unsigned int count = static_cast<unsigned int>(infos.size());
        const nvml_return r = n->compute_processes(device, &count, infos.data());
        if (r == 0) {
            std::vector<int> pids;
            for (unsigned int i = 0; i < count && i < infos.size(); ++i) pids.push_back(static_cast<int>(infos[i].pid));
            return pids;
        }
        if (r != nvml_insufficient_size) return {};
        infos.resize(std::max<std::size_t>(count, infos.size()) * 2);  // more came since: ask again
    }
    return {};
}

struct gpu_helper_watch::state {
    std::string pci_bus_id;
    int root = -1;
    std::mutex mutex;
    std::condition_variable stop_asked;
    bool stopping = false;
    std::map<int, std::string> seen;
    std::thread sampling;

    void sample() {
        const std::vector<int> holders = gpu_context_holders(pci_bus_id);
        if (holders.empty()) return;
        const std::vector<int> tree = process_and_descendants(root);
        for (int pid : holders)
            if (std::find(tree.begin(), tree.end(), pid) != tree.end() && !seen.count(pid))
                seen[pid] = process_name(pid);
    }
};

gpu_helper_watch::gpu_helper_watch(std::string pci_bus_id, int root) : state_(std::make_unique<state>()) {
    state_->pci_bus_id = std::move(pci_bus_id);
    state_->root = root;
    state_->sampling = std::thread([s = state_.get()] {
        std::unique_lock lock(s->mutex);
        while (!s->stopping) {
            s->sample();
            // Every 10 ms: a helper that does a timed call's work holds its
            // context for longer than that.
            s->stop_asked.wait_for(lock, std::chrono::milliseconds(10), [s] { return s->stopping; });
        }
        s->sample();  // once more: a helper may have started since
    });
}

gpu_helper_watch::~gpu_helper_watch() { stop(); }

std::map<int, std::string> gpu_helper_watch::stop() {
    {
        const std::lock_guard lock(state_->mutex);
        state_->stopping = true;
    }
    state_->stop_asked.notify_all();
    if (state_->sampling.joinable()) state_->sampling.join();
    return state_->seen;
}

std::string describe_gpu_helpers(const std::map<int, std::string>& holders) {
    std::string list;
    for (const auto& [pid, name] : holders) list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", pid, name);
    return fmt::format(
        "{} processes of your program held the GPU during this timed test: {}. A timed test's work must be done "
        "by the test program's own process, where the GPU's record is taken; work done by a helper process is not "
        "seen there, so the test fails.",
        holders.size(), list);
}

}  // namespace grader
