#include "run/gpu_gate.hpp"

#include <algorithm>

namespace grader {

void gpu_gate::account() const {
    const auto now = std::chrono::steady_clock::now();
    const auto spent = now - last_change_;
    last_change_ = now;
    if (alone_) alone_total_ += spent;
    else if (!inside_.empty()) {
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

std::optional<std::chrono::steady_clock::time_point> gpu_gate::between_timed_ends() const {
    std::optional<std::chrono::steady_clock::time_point> last;
    for (const auto& [sharer, since] : between_timed_)
        if (!last || since + patience_ > *last) last = since + patience_;
    return last;
}

bool gpu_gate::may_share(std::chrono::steady_clock::time_point now) const {
    if (alone_) return false;
    if (const auto ends = between_timed_ends(); ends && now < *ends) return false;
    if (waiting_alone_ == 0) return true;
    // A timed run waits: behind it, unless it has waited its patience out
    // and a sharer that was in before it is still in.
    return now - waiting_since_ >= patience_ && !inside_.empty() && *inside_.begin() < came_after_;
}

gpu_gate::ticket gpu_gate::enter_shared() {
    std::unique_lock lock(mutex_);
    open_span(gate_span::queued);
    for (auto now = std::chrono::steady_clock::now(); !may_share(now); now = std::chrono::steady_clock::now()) {
        // Woken by any change, and when a patience runs out.
        auto wake = std::chrono::steady_clock::time_point::max();
        if (const auto ends = between_timed_ends(); ends && *ends > now) wake = *ends;
        if (waiting_alone_ > 0 && !alone_ && now < waiting_since_ + patience_)
            wake = std::min(wake, waiting_since_ + patience_);
        if (wake == std::chrono::steady_clock::time_point::max())
            changed_.wait(lock);
        else
            changed_.wait_until(lock, wake);
    }
    close_span(gate_span::queued);
    account();
    return admit_sharer();
}

gpu_gate::ticket gpu_gate::admit_sharer() {
    const ticket mine = next_ticket_++;
    inside_.insert(mine);
    open_span(gate_span::shared);
    return mine;
}

void gpu_gate::timed_runs_wait_from_now() {
    waiting_since_ = std::chrono::steady_clock::now();
    came_after_ = next_ticket_;
}

void gpu_gate::leave_shared(ticket which) {
    std::lock_guard lock(mutex_);
    account();
    inside_.erase(which);
    between_timed_.erase(which);
    close_span(gate_span::shared);
    changed_.notify_all();
}

void gpu_gate::enter_alone() {
    std::unique_lock lock(mutex_);
    account();
    if (waiting_alone_++ == 0) timed_runs_wait_from_now();
    open_span(gate_span::waiting_alone);
    changed_.wait(lock, [&] { return !alone_ && inside_.empty(); });
    close_span(gate_span::waiting_alone);
    account();
    if (--waiting_alone_ > 0) timed_runs_wait_from_now();  // the others, behind no sharer (there is none)
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

gpu_gate::ticket gpu_gate::alone_to_shared(bool more_timed_to_come) {
    std::lock_guard lock(mutex_);
    account();
    alone_ = false;
    close_span(gate_span::alone);
    const ticket mine = admit_sharer();
    if (more_timed_to_come) between_timed_[mine] = std::chrono::steady_clock::now();
    changed_.notify_all();  // other sharers may join
    return mine;
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

gpu_turn::gpu_turn(gpu_gate* gate, work_places* places) : gate_(gate), places_(places) {
    if (gate_) ticket_ = gate_->enter_shared();
}

gpu_turn::~gpu_turn() {
    if (!gate_) return;
    if (alone_) gate_->leave_alone();
    else gate_->leave_shared(ticket_);
}

void gpu_turn::let_waiting_runs_in() {
    if (!gate_ || alone_) return;
    gate_->leave_shared(ticket_);
    ticket_ = gate_->enter_shared();
}

void gpu_turn::alone() {
    if (!gate_ || alone_) return;
    // Leave first, then wait: two runs that both want to be alone must not
    // each hold a share the other waits for.
    gate_->leave_shared(ticket_);
    if (places_) places_->lend();
    gate_->enter_alone();
    if (places_) places_->take_back();
    alone_ = true;
}

void gpu_turn::shared_again(bool more_timed_to_come) {
    if (!gate_ || !alone_) return;
    ticket_ = gate_->alone_to_shared(more_timed_to_come);
    alone_ = false;
}

}  // namespace grader
