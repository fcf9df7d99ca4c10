#pragma once
// One GPU's judged submissions waiting to have their failures explained
// (compute-sanitizer's reruns, Nsight Compute's profiles), in `grader batch`.
//
// Explaining times nothing but uses the GPU, so while it runs another
// submission's timed tests wait (a racecheck rerun can take half a minute).
// So a GPU's graders explain once they have nothing left to grade, or sooner
// when too many wait (each keeps its scratch folder on disk until then).
// More explainers than graders were tried at the batch's end, when no timed
// test is left to hold up. On an H200, lesson01's class explained eight at a
// time took 163 s summed instead of 57 s three at a time (the sanitizer's
// reruns slow each other down), and the batch ended no sooner: so a GPU's
// graders explain, and no one else, and no more than three of them at once
// (explainers_per_gpu, engine.hpp) where it has more graders.
//
// Those for which `goes_first` is true are taken first (those with a profile
// to take, with the GPU alone: no profile should wait behind another
// submission's long sanitizer reruns).
#include <algorithm>
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
    explanation_queue(std::size_t capacity, std::function<bool(const Item&)> goes_first)
        : capacity_(capacity), goes_first_(std::move(goes_first)) {}

    // Adds one; gives back the oldest when too many wait (its grader explains it now).
    std::optional<Item> put(Item item) {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(item));
        if (queue_.size() <= capacity_) return std::nullopt;
        return take_locked(queue_.begin());
    }

    // The next to explain, at once; nullopt when none waits.
    std::optional<Item> take() {
        std::lock_guard lock(mutex_);
        return take_next_locked();
    }

private:
    std::optional<Item> take_next_locked() {
        if (queue_.empty()) return std::nullopt;
        const auto first = std::find_if(queue_.begin(), queue_.end(), goes_first_);
        return take_locked(first != queue_.end() ? first : queue_.begin());
    }
    Item take_locked(typename std::deque<Item>::iterator which) {
        Item taken = std::move(*which);
        queue_.erase(which);
        return taken;
    }

    std::size_t capacity_;
    std::function<bool(const Item&)> goes_first_;
    std::mutex mutex_;
    std::deque<Item> queue_;
};

}  // namespace grader
