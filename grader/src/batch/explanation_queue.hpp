#pragma once
// One GPU's judged submissions waiting to have their failures explained
// (compute-sanitizer's reruns, Nsight Compute's profiles), in `grader batch`.
//
// A GPU's explainers take them as they come, beside its graders: most of a
// rerun's time is the tool's own work on the CPU, and the GPU sits idle
// between timed tests. Each rerun shares the GPU (gpu_gate.hpp), and a run
// steps out between reruns so that a waiting timed test goes first. On an
// H200, explaining only once nothing was left to grade ended lesson07's
// class of 20 some 50 s after its last verdict.
//
// Few explain at once while the graders work: on an H200, lesson01's class
// explained eight at a time took 163 s summed instead of 57 s three at a
// time (the sanitizer's reruns slow each other down, and the graders'
// tests), and the batch ended no sooner. Once nothing is left to judge, the
// graders' places go to the explainers (engine.cpp).
//
// Those for which `goes_first` is true are taken first (those with a profile
// to take, with the GPU alone: no profile should wait behind another
// submission's long sanitizer reruns); then the one of the highest `cost`,
// the first to come among equals: longest first, so that the longest reruns
// are not the last to start. (On an H200, lesson07's classes end with one
// submission's racecheck reruns, 20 to 30 s with the GPU to themselves; with
// this order their explanation still waited some 35 s for a place, taken by
// explanations that waited for the GPU, and the batch was no shorter.)
// put() waits while `capacity` wait (each keeps its scratch folder on disk
// until it is explained).
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

namespace grader {

template <typename Item>
class explanation_queue {
public:
    explanation_queue(std::size_t capacity, std::function<bool(const Item&)> goes_first,
                      std::function<double(const Item&)> cost = {})
        : capacity_(capacity), goes_first_(std::move(goes_first)), cost_(std::move(cost)) {}

    // Adds one, once fewer than `capacity` wait.
    void put(Item item) {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return queue_.size() < capacity_; });
        queue_.push_back(std::move(item));
        ready_.notify_one();
    }

    // The next to explain, once there is one; nullopt once closed and empty.
    std::optional<Item> take() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
        if (queue_.empty()) return std::nullopt;
        auto which = std::find_if(queue_.begin(), queue_.end(), goes_first_);
        if (which == queue_.end()) {
            which = queue_.begin();
            if (cost_)
                for (auto it = queue_.begin(); it != queue_.end(); ++it)
                    if (cost_(*it) > cost_(*which)) which = it;
        }
        Item taken = std::move(*which);
        queue_.erase(which);
        room_.notify_one();
        return taken;
    }

    // No more will come (the graders are done).
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        ready_.notify_all();
    }

private:
    std::size_t capacity_;
    std::function<bool(const Item&)> goes_first_;
    std::function<double(const Item&)> cost_;
    std::mutex mutex_;
    std::condition_variable ready_, room_;
    std::deque<Item> queue_;
    bool closed_ = false;
};

}  // namespace grader
