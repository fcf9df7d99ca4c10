#include "gpu_gate.hpp"

namespace grader {

void gpu_gate::account() const {
    const auto now = std::chrono::steady_clock::now();
    const auto spent = now - last_change_;
    last_change_ = now;
    if (alone_) alone_total_ += spent;
    else if (sharing_ > 0) {
        shared_total_ += spent;
        if (waiting_alone_ > 0) held_up_total_ += spent;
    }
}

void gpu_gate::enter_shared() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !alone_ && waiting_alone_ == 0; });
    account();
    ++sharing_;
}

void gpu_gate::leave_shared() {
    std::lock_guard lock(mutex_);
    account();
    --sharing_;
    changed_.notify_all();
}

void gpu_gate::enter_alone() {
    std::unique_lock lock(mutex_);
    account();
    ++waiting_alone_;
    changed_.wait(lock, [&] { return !alone_ && sharing_ == 0; });
    account();
    --waiting_alone_;
    alone_ = true;
}

void gpu_gate::leave_alone() {
    std::lock_guard lock(mutex_);
    account();
    alone_ = false;
    changed_.notify_all();
}

double gpu_gate::alone_seconds() const {
    std::lock_guard lock(mutex_);
    account();
    return alone_total_.count();
}

double gpu_gate::shared_seconds() const {
    std::lock_guard lock(mutex_);
    account();
    return shared_total_.count();
}

double gpu_gate::held_up_seconds() const {
    std::lock_guard lock(mutex_);
    account();
    return held_up_total_.count();
}

gpu_turn::gpu_turn(gpu_gate* gate) : gate_(gate) {
    if (gate_) gate_->enter_shared();
}

gpu_turn::~gpu_turn() {
    if (!gate_) return;
    if (alone_) gate_->leave_alone();
    else gate_->leave_shared();
}

void gpu_turn::let_waiting_runs_in() {
    if (!gate_ || alone_) return;
    gate_->leave_shared();
    gate_->enter_shared();
}

void gpu_turn::alone() {
    if (!gate_ || alone_) return;
    // Leave first, then wait: two runs that both want to be alone must not
    // each hold a share the other waits for.
    gate_->leave_shared();
    gate_->enter_alone();
    alone_ = true;
}

}  // namespace grader
