#include "run/gpu_gate.hpp"

#include <algorithm>
#include <utility>

// The gate's pausing of sharers (gpu_gate.hpp): which runs' processes it
// knows, and pausing them for a timed run instead of waiting for them.
namespace grader {

bool gpu_gate::pause_sharers(const void* owner, std::unique_lock<std::mutex>& lock) {
    if (!pauser_) return false;
    // Every sharer must be a run whose processes are all known and started.
    std::vector<const void*> sharers;
    for (const auto& [which, run] : inside_) {
        if (run == owner) continue;
        const auto known = runs_.find(run);
        if (run == nullptr || known == runs_.end() || !known->second.watched || known->second.starting > 0) return false;
        sharers.push_back(run);
    }
    std::vector<int> roots;
    for (const void* run : sharers) roots.insert(roots.end(), runs_[run].roots.begin(), runs_[run].roots.end());
    // The tree the driver refused last time first: while it still cannot be
    // paused (a long compute-sanitizer rerun), the attempt ends there,
    // without locking and unlocking every other sharer each time.
    if (const auto refused = std::find(roots.begin(), roots.end(), last_refused_root_); refused != roots.end())
        std::rotate(roots.begin(), refused, refused + 1);
    // No process starts meanwhile (process_starting waits), and sharers that
    // leave only take processes away.
    pausing_ = true;
    alone_owner_ = owner;
    lock.unlock();
    std::vector<int> paused;
    bool all = true;
    for (int root : roots) {
        // Work of theirs still running gets a few milliseconds to finish.
        const auto tree = pauser_->pause_tree(root, std::chrono::milliseconds(20));
        if (!tree) {
            all = false;
            last_refused_root_ = root;  // written with the mutex released: only the one pausing (pausing_) writes it
            break;
        }
        paused.insert(paused.end(), tree->begin(), tree->end());
    }
    if (!all) pauser_->resume(paused);
    lock.lock();
    pausing_ = false;
    // A sharer let in meanwhile (after a timed run's patience) must be one
    // whose processes are known, and it has started none yet.
    for (const auto& [which, run] : inside_) {
        if (run == owner || std::find(sharers.begin(), sharers.end(), run) != sharers.end()) continue;
        const auto known = runs_.find(run);
        if (run == nullptr || known == runs_.end() || !known->second.watched || known->second.starting > 0 ||
            !known->second.roots.empty()) {
            if (all) pauser_->resume(paused);
            all = false;
            break;
        }
    }
    if (!all) {
        alone_owner_ = nullptr;
        changed_.notify_all();  // processes may start again
        return false;
    }
    const auto now = std::chrono::steady_clock::now();
    for (const void* run : sharers) {
        const auto known = runs_.find(run);  // one that ended meanwhile is gone
        if (known == runs_.end()) continue;
        known->second.paused = true;
        known->second.paused_since = now;
    }
    paused_pids_ = std::move(paused);
    return true;
}

void gpu_gate::watch(const void* owner) {
    std::lock_guard lock(mutex_);
    runs_[owner].watched = true;
}

void gpu_gate::forget(const void* owner) {
    std::lock_guard lock(mutex_);
    const auto run = runs_.find(owner);
    if (run == runs_.end()) return;
    if (run->second.paused) paused_total_ += std::chrono::steady_clock::now() - run->second.paused_since;
    runs_.erase(run);  // its processes stay in paused_pids_ until the alone run is done
}

void gpu_gate::process_starting(const void* owner) {
    std::unique_lock lock(mutex_);
    // Not while a timed run waits as well: a run's judge may wait for its
    // program's first claim before it first uses CUDA, which no pause can
    // wait out, so a program held back here could hold the timed run forever.
    changed_.wait(lock, [&] { return !((alone_ || pausing_) && alone_owner_ != owner); });
    ++runs_[owner].starting;
}

void gpu_gate::process_started(const void* owner, int root) {
    std::lock_guard lock(mutex_);
    auto& run = runs_[owner];
    --run.starting;
    run.roots.push_back(root);
    changed_.notify_all();
}

void gpu_gate::process_not_started(const void* owner) {
    std::lock_guard lock(mutex_);
    --runs_[owner].starting;
    changed_.notify_all();
}

void gpu_gate::process_ended(const void* owner, int root) {
    std::lock_guard lock(mutex_);
    auto& roots = runs_[owner].roots;
    roots.erase(std::remove(roots.begin(), roots.end(), root), roots.end());
    changed_.notify_all();
}

std::chrono::steady_clock::duration gpu_gate::paused_for(const void* owner) const {
    std::lock_guard lock(mutex_);
    const auto run = runs_.find(owner);
    if (run == runs_.end()) return {};
    auto total = run->second.paused_total;
    if (run->second.paused) total += std::chrono::steady_clock::now() - run->second.paused_since;
    return total;
}

double gpu_gate::paused_seconds() const {
    std::lock_guard lock(mutex_);
    return paused_total_.count();
}

}  // namespace grader
