#include "run/work_places.hpp"

namespace grader {

void work_places::take() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return free_ > 0; });
    --free_;
}

void work_places::give_back() {
    {
        std::lock_guard lock(mutex_);
        ++free_;
    }
    freed_.notify_one();
}

void work_places::lend() { give_back(); }

void work_places::take_back() {
    std::lock_guard lock(mutex_);
    --free_;
}

void work_places::add() {
    {
        std::lock_guard lock(mutex_);
        ++count_;
        ++free_;
    }
    freed_.notify_one();
}

int work_places::working() const {
    std::lock_guard lock(mutex_);
    return count_ - free_;
}

}  // namespace grader
