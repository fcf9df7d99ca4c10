#include "run/gpu_gate.hpp"

#include <algorithm>
#include <utility>

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

void gpu_gate::open_span(gate_span::kind_t kind, const void* owner) {
    const auto now = std::chrono::steady_clock::now();
    spans_.push_back({kind, std::this_thread::get_id(), owner, now, now});
}

void gpu_gate::close_span(gate_span::kind_t kind, const void* owner) {
    const auto me = std::this_thread::get_id();
    for (auto it = spans_.rbegin(); it != spans_.rend(); ++it)
        if (it->owner == owner && (owner || it->thread == me) && it->kind == kind && it->end == it->start) {
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

bool gpu_gate::may_share(std::chrono::steady_clock::time_point now, bool pausable) const {
    if (alone_) return false;
    if (const auto ends = between_timed_ends(); ends && now < *ends && !pausable) return false;
    if (waiting_alone_ == 0) return true;
    // A timed run waits: behind it, unless it has waited its patience out
    // and a sharer that was in before it (not a rerun: that one is stopped)
    // is still in.
    return overdue_behind_a_long_sharer(now);
}

void gpu_gate::wait_for_a_change(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point now) {
    // A patience that runs out changes what may go in without anyone calling
    // the gate: the last between two timed tests, and a waiting run's.
    auto wake = std::chrono::steady_clock::time_point::max();
    if (const auto ends = between_timed_ends(); ends && *ends > now) wake = *ends;
    if (waiting_alone_ > 0 && !alone_ && now < waiting_since_ + patience_)
        wake = std::min(wake, waiting_since_ + patience_);
    if (wake == std::chrono::steady_clock::time_point::max())
        changed_.wait(lock);
    else
        changed_.wait_until(lock, wake);
}

gpu_gate::ticket gpu_gate::enter_shared(const void* owner) {
    std::unique_lock lock(mutex_);
    open_span(gate_span::queued, owner);
    const auto known = runs_.find(owner);
    const bool pausable = pauser_ && owner && known != runs_.end() && known->second.watched;
    for (auto now = std::chrono::steady_clock::now(); !may_share(now, pausable); now = std::chrono::steady_clock::now()) {
        wait_for_a_change(lock, now);
    }
    close_span(gate_span::queued, owner);
    account();
    return admit_sharer(owner);
}

gpu_gate::ticket gpu_gate::admit_sharer(const void* owner) {
    const ticket mine = next_ticket_++;
    inside_[mine] = owner;
    open_span(gate_span::shared, owner);
    return mine;
}

void gpu_gate::timed_runs_wait_from_now() {
    waiting_since_ = std::chrono::steady_clock::now();
    came_after_ = next_ticket_;
}

void gpu_gate::drop_sharer(ticket which) {
    if (const auto sharer = inside_.find(which); sharer != inside_.end()) close_span(gate_span::shared, sharer->second);
    inside_.erase(which);
    between_timed_.erase(which);
    yielding_.erase(which);
    stop_yielding_in_the_way();  // the last sharer a timed run waited for may have gone
}

bool gpu_gate::only_yielding_inside() const {
    return std::all_of(inside_.begin(), inside_.end(),
                       [&](const auto& sharer) { return yielding_.count(sharer.first) > 0; });
}

bool gpu_gate::overdue_behind_a_long_sharer(std::chrono::steady_clock::time_point now) const {
    if (waiting_alone_ == 0 || now - waiting_since_ < patience_) return false;
    // A rerun in a timed run's way is stopped, so it is not waited for; a
    // profile waits for it as for any sharer.
    const bool reruns_waited_for = waiting_to_time_ == 0;
    return std::any_of(inside_.begin(), inside_.end(), [&](const auto& sharer) {
        return sharer.first < came_after_ && (reruns_waited_for || yielding_.count(sharer.first) == 0);
    });
}

bool gpu_gate::may_yield_in(std::chrono::steady_clock::time_point now) const {
    if (alone_) return false;
    // Where sharers are paused, a waiting timed run stops every rerun at
    // once (stop_yielding_in_the_way): none goes in meanwhile.
    if (waiting_to_time_ > 0 && pauser_) return false;
    // Behind a waiting run, as any sharer: once it has waited its patience
    // out behind a sharer that was in before it (a hang running to its time
    // limit; for a profile, a racecheck of 20 s too), new reruns go in beside
    // that one rather than leave the GPU to it. A timed run loses nothing:
    // they are stopped as soon as it would wait for nothing else (on an H200,
    // lesson01's class once had three explanations wait 12 to 16 s behind a
    // hang that a timed test waited for).
    if (waiting_alone_ > 0 && !overdue_behind_a_long_sharer(now)) return false;
    const auto ends = between_timed_ends();
    return !ends || now >= *ends;
}

void gpu_gate::stop_yielding_in_the_way() {
    if (waiting_to_time_ == 0) return;
    if (pauser_ || only_yielding_inside()) stop_yielding_sharers();
}

gpu_gate::ticket gpu_gate::enter_yielding(std::function<void()> stop, const void* owner) {
    std::unique_lock lock(mutex_);
    open_span(gate_span::queued, owner);
    for (auto now = std::chrono::steady_clock::now(); !may_yield_in(now); now = std::chrono::steady_clock::now()) {
        wait_for_a_change(lock, now);
    }
    close_span(gate_span::queued, owner);
    account();
    const ticket mine = admit_sharer(owner);
    yielding_[mine] = {std::move(stop), false};
    return mine;
}

bool gpu_gate::leave_yielding(ticket which) {
    std::lock_guard lock(mutex_);
    const auto found = yielding_.find(which);
    const bool stopped = found != yielding_.end() && found->second.stopped;
    account();
    drop_sharer(which);
    changed_.notify_all();
    return stopped;
}

void gpu_gate::stop_yielding_sharers() {
    for (auto& [which, sharer] : yielding_) {
        if (sharer.stopped) continue;
        sharer.stopped = true;
        if (sharer.stop) sharer.stop();
    }
}

void gpu_gate::leave_shared(ticket which) {
    std::lock_guard lock(mutex_);
    account();
    drop_sharer(which);
    changed_.notify_all();
}

void gpu_gate::enter_alone(const void* owner, std::optional<ticket> leaving, alone_for why) {
    std::unique_lock lock(mutex_);
    account();
    if (leaving) {
        drop_sharer(*leaving);
        changed_.notify_all();
    }
    if (waiting_alone_++ == 0) timed_runs_wait_from_now();
    const bool timing = why == alone_for::timing;
    if (timing) ++waiting_to_time_;
    open_span(gate_span::waiting_alone, owner);
    // No yielding sharer goes in from now (it waits for waiting_alone_), and,
    // for a timed test, those inside are stopped as soon as nothing else is
    // inside: they leave at once. Each stop is called with the lock held, so
    // that its sharer, which cannot leave meanwhile, is still there to hear it.
    stop_yielding_in_the_way();
    for (;;) {
        if (!alone_ && !pausing_) {
            if (inside_.empty()) break;
            if (pause_sharers(owner, lock)) break;
        }
        // Woken by a sharer leaving or a run done being alone; and, where
        // sharers may be paused, again soon: a kernel of theirs that was still
        // running, or a program not yet using CUDA, may be pausable by then.
        if (pauser_) changed_.wait_for(lock, std::chrono::milliseconds(20));
        else changed_.wait(lock);
    }
    close_span(gate_span::waiting_alone, owner);
    account();
    if (timing) --waiting_to_time_;
    if (--waiting_alone_ > 0) timed_runs_wait_from_now();  // the others, behind no sharer that was not paused
    alone_ = true;
    alone_owner_ = owner;
    open_span(gate_span::alone, owner);
}

void gpu_gate::end_alone() {
    alone_ = false;
    alone_owner_ = nullptr;
    if (pauser_) pauser_->resume(paused_pids_);  // about 0.3 ms each
    paused_pids_.clear();
    const auto now = std::chrono::steady_clock::now();
    for (auto& [run, processes] : runs_)
        if (processes.paused) {
            processes.paused = false;
            processes.paused_total += now - processes.paused_since;
            paused_total_ += now - processes.paused_since;
        }
}

void gpu_gate::leave_alone() {
    std::lock_guard lock(mutex_);
    account();
    close_span(gate_span::alone, alone_owner_);
    end_alone();
    changed_.notify_all();
}

gpu_gate::ticket gpu_gate::alone_to_shared(bool more_timed_to_come, const void* owner) {
    std::lock_guard lock(mutex_);
    account();
    close_span(gate_span::alone, alone_owner_);
    end_alone();
    const ticket mine = admit_sharer(owner);
    if (more_timed_to_come) between_timed_[mine] = std::chrono::steady_clock::now();
    changed_.notify_all();  // other sharers may join
    return mine;
}

std::vector<gate_span> gpu_gate::spans() const {
    std::lock_guard lock(mutex_);
    return spans_;
}

bool gpu_gate::timed_runs_waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_alone_ > 0;
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

}  // namespace grader
