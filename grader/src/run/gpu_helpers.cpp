#include "run/gpu_helpers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "run/nvml.hpp"
#include "system/process_tree.hpp"

namespace grader {

namespace {

std::string process_name(int pid) {
    std::ifstream comm(fmt::format("/proc/{}/comm", pid));
    std::string name;
    std::getline(comm, name);
    return name.empty() ? "?" : name;
}

}  // namespace

std::vector<int> gpu_context_holders(const std::string& pci_bus_id) {
    const nvml::library* n = nvml::opened();
    if (!n || !n->compute_processes) return {};
    const nvml::device device = n->find(pci_bus_id);
    if (!device) return {};
    std::vector<nvml::process_info> infos(16);
    for (int attempt = 0; attempt < 4; ++attempt) {
        unsigned int count = static_cast<unsigned int>(infos.size());
        const nvml::result r = n->compute_processes(device, &count, infos.data());
        if (r == nvml::success) {
            std::vector<int> pids;
            for (unsigned int i = 0; i < count && i < infos.size(); ++i) pids.push_back(static_cast<int>(infos[i].pid));
            return pids;
        }
        if (r != nvml::insufficient_size) return {};
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
