#pragma once
// How many graded runs may work on one GPU at once (`grader batch`): a few,
// since their correctness tests and the sanitizer's reruns slow each other
// down. A run that waits for the GPU alone (gpu_gate.hpp) does no work while
// it waits, often for seconds behind the sharers; it lends its place to the
// next submission meanwhile, and takes it back, over the count if need be,
// once its timed test may start: it was admitted, and holds the GPU.
#include <condition_variable>
#include <mutex>

namespace grader {

class work_places {
public:
    explicit work_places(int count) : count_(count), free_(count) {}

    void take();        // waits for a free place
    void give_back();   // the run has ended
    void lend();        // while the run waits to be alone: another may work
    void take_back();   // once it may run: at once, even with none free

    int working() const;  // places taken now, lent ones not counted
    void add();           // one more place, for good

private:
    mutable std::mutex mutex_;
    std::condition_variable freed_;
    int count_;
    int free_;  // below zero while the runs that took theirs back outnumber the places
};

// A run's place, taken on construction and given back on destruction, or
// before (give_back). Without places it does nothing.
class work_place {
public:
    explicit work_place(work_places* places) : places_(places) {
        if (places_) places_->take();
    }
    ~work_place() { give_back(); }
    void give_back() {
        if (places_) places_->give_back();
        places_ = nullptr;
    }
    work_place(const work_place&) = delete;
    work_place& operator=(const work_place&) = delete;

private:
    work_places* places_;
};

}  // namespace grader
