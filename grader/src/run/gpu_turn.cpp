#include "run/gpu_gate.hpp"

#include <utility>

// One graded run's turns at the gate (gpu_gate.hpp's gpu_turn).
namespace grader {

gpu_turn::gpu_turn(gpu_gate* gate, work_places* places, bool watch_processes) : gate_(gate), places_(places) {
    if (!gate_) return;
    if (watch_processes) gate_->watch(this);
    ticket_ = gate_->enter_shared(this);
}

gpu_turn::~gpu_turn() {
    if (!gate_) return;
    gate_->forget(this);
    if (alone_) gate_->leave_alone();
    else if (ticket_) gate_->leave_shared(*ticket_);
}

void gpu_turn::let_waiting_runs_in() {
    if (!gate_ || alone_) return;
    if (ticket_) gate_->leave_shared(*std::exchange(ticket_, std::nullopt));
    ticket_ = gate_->enter_shared(this);
}

bool gpu_turn::rerun_yielding(const std::function<void()>& rerun, std::function<void()> stop) {
    if (!gate_ || alone_) {
        rerun();
        return true;
    }
    if (ticket_) gate_->leave_shared(*std::exchange(ticket_, std::nullopt));
    const gpu_gate::ticket mine = gate_->enter_yielding(std::move(stop), this);
    try {
        rerun();
    } catch (...) {
        gate_->leave_yielding(mine);
        throw;
    }
    return !gate_->leave_yielding(mine);
}

bool gpu_turn::others_wait_to_be_alone() const {
    return gate_ && !alone_ && gate_->timed_runs_waiting();
}

void gpu_turn::alone(gpu_gate::alone_for why) {
    if (!gate_ || alone_) return;
    // Its share goes as it begins to wait: two runs that both want to be
    // alone must not each hold a share the other waits for.
    if (places_) places_->lend();
    {
        std::lock_guard lock(waits_mutex_);
        waiting_since_ = std::chrono::steady_clock::now();
    }
    auto waited = [this] {
        std::lock_guard lock(waits_mutex_);
        waited_ += std::chrono::steady_clock::now() - *std::exchange(waiting_since_, std::nullopt);
    };
    try {
        gate_->enter_alone(this, std::exchange(ticket_, std::nullopt), why);
    } catch (...) {
        waited();
        throw;
    }
    waited();
    if (places_) places_->take_back();
    alone_ = true;
}

std::chrono::steady_clock::duration gpu_turn::waited_for_turns() const {
    std::lock_guard lock(waits_mutex_);
    return waited_ + (waiting_since_ ? std::chrono::steady_clock::now() - *waiting_since_
                                     : std::chrono::steady_clock::duration{});
}

void gpu_turn::shared_again(bool more_timed_to_come) {
    if (!gate_ || !alone_) return;
    ticket_ = gate_->alone_to_shared(more_timed_to_come, this);
    alone_ = false;
}

std::chrono::steady_clock::duration gpu_turn::paused_for() const {
    return gate_ ? gate_->paused_for(this) : std::chrono::steady_clock::duration{};
}

gpu_turn::process_slot::process_slot(gpu_turn* turn) : turn_(turn && turn->gate_ ? turn : nullptr) {
    if (turn_) turn_->gate_->process_starting(turn_);
}

void gpu_turn::process_slot::started(int root) {
    if (!turn_ || root_ >= 0) return;
    root_ = root;
    turn_->gate_->process_started(turn_, root);
}

gpu_turn::process_slot::~process_slot() {
    if (!turn_) return;
    if (root_ >= 0) turn_->gate_->process_ended(turn_, root_);
    else turn_->gate_->process_not_started(turn_);
}

}  // namespace grader
