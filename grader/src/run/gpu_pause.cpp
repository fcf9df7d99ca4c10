#include "run/gpu_pause.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <set>

#include "system/process_tree.hpp"

namespace grader {

namespace {

// The few declarations used, as cuda.h (12.8 and newer) gives them: the
// library comes with the driver, and the grader must also start where there
// is none (CI, a login node), so it is opened at run time.
using cu_result = int;
constexpr cu_result cuda_success = 0;
constexpr cu_result cuda_error_not_initialized = 3;   // not (yet) a CUDA process
constexpr cu_result cuda_error_operating_system = 304;  // no such process (it ended)
constexpr int cu_process_state_running = 0;
struct cu_lock_args {
    unsigned int timeout_ms;
    unsigned int reserved0;
    unsigned long long reserved1[7];
};

class checkpoint_pauser final : public process_pauser {
public:
    bool open() {
        library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library_) return false;
        get_state_ = reinterpret_cast<decltype(get_state_)>(dlsym(library_, "cuCheckpointProcessGetState"));
        lock_ = reinterpret_cast<decltype(lock_)>(dlsym(library_, "cuCheckpointProcessLock"));
        unlock_ = reinterpret_cast<decltype(unlock_)>(dlsym(library_, "cuCheckpointProcessUnlock"));
        return get_state_ && lock_ && unlock_;
    }

    std::optional<std::vector<int>> pause_tree(int root, std::chrono::milliseconds wait) const override {
        const std::vector<tree_process> tree = process_tree(root);
        std::set<int> parents;
        for (const auto& p : tree) parents.insert(p.parent);
        std::vector<int> paused;
        auto give_up = [&] {
            resume(paused);
            return std::nullopt;
        };
        for (const auto& process : tree) {
            const int pid = process.pid;
            // Stopped or traced: the driver's state query waits for an answer
            // such a process cannot give (seen on the H200: it never returned).
            if (process.state == 'T' || process.state == 't') return give_up();
            int state = -1;
            const cu_result asked = get_state_(pid, &state);
            if (asked == cuda_error_operating_system) continue;  // it ended
            if (asked == cuda_error_not_initialized) {
                // bubblewrap and a tool's own process never use CUDA; the
                // program at the end of the tree has not yet, and may.
                if (parents.count(pid)) continue;
                return give_up();
            }
            if (asked != cuda_success || state != cu_process_state_running) return give_up();
            cu_lock_args args{};
            args.timeout_ms = static_cast<unsigned>(std::max<long long>(1, wait.count()));
            if (lock_(pid, &args) != cuda_success) return give_up();
            paused.push_back(pid);
        }
        return paused;
    }

    void resume(const std::vector<int>& pids) const override {
        for (int pid : pids) unlock_(pid, nullptr);  // an ended process: nothing to do
    }

private:
    void* library_ = nullptr;  // kept open for the grader's lifetime
    cu_result (*get_state_)(int, int*) = nullptr;
    cu_result (*lock_)(int, cu_lock_args*) = nullptr;
    cu_result (*unlock_)(int, void*) = nullptr;
};

}  // namespace

const process_pauser* driver_pauser() {
    static const checkpoint_pauser* const pauser = [] {
        auto* candidate = new checkpoint_pauser;
        if (candidate->open()) return candidate;
        delete candidate;
        return static_cast<checkpoint_pauser*>(nullptr);
    }();
    return pauser;
}

}  // namespace grader
