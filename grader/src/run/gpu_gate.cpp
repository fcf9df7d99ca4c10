#include "run/gpu_gate.hpp"

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

const char* to_string(gate_span::kind_t kind) {
    switch (kind) {
        case gate_span::queued: return "queued";
        case gate_span::shared: return "shared";
        case gate_span::waiting_alone: return "waiting_alone";
        case gate_span::alone: return "alone";
    }
    return "?";
}

void gpu_gate::open_span(gate_span::kind_t kind) {
    const auto now = std::chrono::steady_clock::now();
    spans_.push_back({kind, std::this_thread::get_id(), now, now});
}

void gpu_gate::close_span(gate_span::kind_t kind) {
    const auto me = std::this_thread::get_id();
    for (auto it = spans_.rbegin(); it != spans_.rend(); ++it)
        if (it->thread == me && it->kind == kind && it->end == it->start) {
            it->end = std::chrono::steady_clock::now();
            return;
        }
}

void gpu_gate::enter_shared() {
    std::unique_lock lock(mutex_);
    open_span(gate_span::queued);
    changed_.wait(lock, [&] { return !alone_ && waiting_alone_ == 0; });
    close_span(gate_span::queued);
    account();
    ++sharing_;
    open_span(gate_span::shared);
}

void gpu_gate::leave_shared() {
    std::lock_guard lock(mutex_);
    account();
    --sharing_;
    close_span(gate_span::shared);
    changed_.notify_all();
}

void gpu_gate::enter_alone() {
    std::unique_lock lock(mutex_);
    account();
    ++waiting_alone_;
    open_span(gate_span::waiting_alone);
    changed_.wait(lock, [&] { return !alone_ && sharing_ == 0; });
    close_span(gate_span::waiting_alone);
    account();
    --waiting_alone_;
    alone_ = true;
    open_span(gate_span::alone);
}

void gpu_gate::leave_alone() {
    std::lock_guard lock(mutex_);
    account();
    alone_ = false;
    close_span(gate_span::alone);
    changed_.notify_all();
}

std::vector<gate_span> gpu_gate::spans() const {
    std::lock_guard lock(mutex_);
    return spans_;
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
