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
// Those for which `at_the_end` is true (a profile to take, with the GPU
// alone) wait until nothing more will come (close(): every submission is
// judged), then go first. A profile is an explanation: taken while the
// graders work, it held their correctness tests back (on an H200,
// lesson07's class once had four profiles in a row waiting for the GPU
// alone while every grader waited behind them, 14 s of a nearly idle GPU).
// Before the end one is taken only where the queue is full of them, so that
// a grader never waits for room that only the end would make.
// The rest: the one of the highest `cost` first,
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
    explanation_queue(std::size_t capacity, std::function<bool(const Item&)> at_the_end,
                      std::function<double(const Item&)> cost = {})
        : capacity_(capacity), at_the_end_(std::move(at_the_end)), cost_(std::move(cost)) {}

    // Adds one, once fewer than `capacity` wait.
    void put(Item item) {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return queue_.size() < capacity_; });
        queue_.push_back(std::move(item));
        ready_.notify_all();  // a full queue lets an explainer take what waits for the end
    }

    // The next to explain, once there is one it may take; nullopt once
    // closed and empty.
    std::optional<Item> take() {
        std::unique_lock lock(mutex_);
        typename std::deque<Item>::iterator which;
        ready_.wait(lock, [&] {
            which = next();
            return which != queue_.end() || (closed_ && queue_.empty());
        });
        if (which == queue_.end()) return std::nullopt;
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
    // The one to take now, or end() where none may be taken yet (mutex held).
    typename std::deque<Item>::iterator next() {
        const auto waits_for_the_end = [&](const Item& item) { return at_the_end_ && at_the_end_(item); };
        const auto first_at_the_end = std::find_if(queue_.begin(), queue_.end(), waits_for_the_end);
        if (closed_ && first_at_the_end != queue_.end()) return first_at_the_end;
        auto which = queue_.end();
        for (auto it = queue_.begin(); it != queue_.end(); ++it) {
            if (waits_for_the_end(*it)) continue;
            if (which == queue_.end() || (cost_ && cost_(*it) > cost_(*which))) which = it;
        }
        if (which == queue_.end() && queue_.size() >= capacity_) return first_at_the_end;  // full of them
        return which;
    }

    std::size_t capacity_;
    std::function<bool(const Item&)> at_the_end_;
    std::function<double(const Item&)> cost_;
    std::mutex mutex_;
    std::condition_variable ready_, room_;
    std::deque<Item> queue_;
    bool closed_ = false;
};

}  // namespace grader
