#pragma once
// One GPU shared by several graded runs at once (`grader batch`): their
// correctness tests may share it (a wrong answer is wrong on a busy GPU too),
// but a test that measures time must have it to itself, or one student's
// speed would depend on another's tests. The gate is a readers-writer lock
// that serves a waiting timed run before new sharers, so timing is never
// starved by a stream of correctness tests; but when the run has waited its
// patience out and a sharer that was in before it still holds the GPU (a
// hang running to its time limit, a long sanitizer rerun), new sharers may
// go in beside that one: the timed run could not start before it leaves
// anyway, and once it has, new sharers wait again. A run between two timed
// tests of its own (the judge's check of the first) holds new sharers back
// the same way, or a flood of them would go in during that moment and it
// would wait for each to finish (on an H200, lesson07's runs once waited
// 11-24 s between their timed tests).
// Where the driver can pause a process's GPU work (gpu_pause.hpp), a timed
// run does not wait for the sharers to leave: it pauses the processes of
// every sharer that lets it (gpu_turn's watch_processes), for as long as its
// timed test runs, and their CPU work goes on meanwhile. A sharer that cannot
// be paused now (a kernel still running, a program not yet using CUDA, a run
// under compute-sanitizer, a program that has recorded a timed test) is
// waited for as before, and no sharer starts a process while another run is
// alone. A paused run's time limits are extended by the time it was paused.
// An explanation's rerun (compute-sanitizer) is feedback, not a grade, so
// it never holds up a timed test: it goes in only while no run waits to
// time a test, is alone, or is between two timed tests of its own, and once
// a waiting timed run would wait for nothing but such reruns, they are
// stopped at once (enter_yielding); the explainer does each again, from the start,
// once the GPU is free of timed tests. Until then a rerun runs on beside the
// sharers the timed run waits for anyway, and once the timed run has waited
// its patience out behind a sharer that was in before it (a hang), new
// reruns go in beside that one too, as new sharers do: they are stopped when
// it leaves, unless they are done by then. Where sharers are paused rather
// than waited for, reruns, which cannot be paused, are stopped as soon as a
// timed run waits, and none goes in while one does. A profile (Nsight
// Compute, alone_for::profiling) is an explanation too: it waits for the
// reruns inside to end instead of stopping them, and no new one starts
// meanwhile, up to the patience behind one that was in before it, as for
// any sharer.
// It also keeps a timeline of the GPU's time: held alone (the part of a
// batch no parallelism can shorten), shared, and how long timed runs waited
// for sharers to leave; and who held it when (the batch's timeline).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "run/gpu_pause.hpp"
#include "run/work_places.hpp"

namespace grader {

// A stretch of one run's time at the gate (of one thread's, for a caller
// that names no run).
struct gate_span {
    enum kind_t { queued, shared, waiting_alone, alone } kind;
    std::thread::id thread;  // the thread that opened it
    // The run (gpu_turn) it belongs to; null where the caller named none.
    // A run's timed test may begin on one thread (a process under Nsight
    // Compute) and end on another (the judge's), so a run's spans are told
    // apart by the run, not the thread.
    const void* owner = nullptr;
    std::chrono::steady_clock::time_point start, end;  // end == start: still open
};
const char* to_string(gate_span::kind_t kind);

class gpu_gate {
public:
    using ticket = std::uint64_t;  // a sharer's place in the order of arrival

    // `pauser`: how sharers are paused (null: never; they are waited for).
    explicit gpu_gate(std::chrono::milliseconds patience = default_patience, const process_pauser* pauser = nullptr)
        : patience_(patience), pauser_(pauser) {}
    // Longer than one run's correctness tests usually hold the GPU.
    static constexpr std::chrono::milliseconds default_patience{5000};

    // `owner` (a gpu_turn) names the run, whose processes watch() lists.
    ticket enter_shared(const void* owner = nullptr);
    void leave_shared(ticket which);
    // Why a run wants the GPU alone: to time a test, which no explanation
    // may hold up (the yielding sharers in its way are stopped, and done
    // again later), or to profile one for an explanation (ncu's figures are
    // only right alone), which is feedback like a rerun: it waits for the
    // reruns inside to end rather than throw their work away.
    enum class alone_for { timing, profiling };
    // `leaving`: the caller's own share, given up in the same step as it
    // begins to wait, so that no sharer held back for it (between two of
    // its timed tests) slips in between the two and is waited for.
    void enter_alone(const void* owner = nullptr, std::optional<ticket> leaving = std::nullopt,
                     alone_for why = alone_for::timing);
    void leave_alone();
    // A sharer that yields to timed runs (an explanation's rerun): it goes
    // in once no run waits to be alone (or the one waiting is overdue behind
    // a long sharer), is alone or is between two timed tests; from then
    // until it leaves, once a run waiting to time a test
    // would wait for it and other yielding sharers alone, `stop` is called
    // (once, from the thread that changed the gate, with the gate's lock
    // held: it must not block or call the gate), which must make the
    // sharer's GPU work end at once. leave_yielding says whether it was
    // stopped: then its work is to be done again.
    ticket enter_yielding(std::function<void()> stop, const void* owner = nullptr);
    bool leave_yielding(ticket which);

    // The run `owner` registers every process it starts from now on, so it
    // may be paused (it never is otherwise).
    void watch(const void* owner);
    void forget(const void* owner);  // the run has ended
    // Before `owner` starts a process: waits while another run is alone or
    // being made alone. Then process_started or process_not_started.
    void process_starting(const void* owner);
    void process_started(const void* owner, int root);
    void process_not_started(const void* owner);
    void process_ended(const void* owner, int root);
    // How long `owner`'s processes have been paused, in all.
    std::chrono::steady_clock::duration paused_for(const void* owner) const;
    // Seconds, over every run so far, that sharers were paused.
    double paused_seconds() const;
    // From alone to sharing at once, with no other run in between: the
    // judge's check of a timed test may still be using the GPU. With
    // `more_timed_to_come` (the run has another timed test next, once its
    // process has started), new sharers wait as they would for a waiting
    // timed run, for up to the patience: otherwise they all go in during
    // that second, and the run waits for every one of them to finish.
    ticket alone_to_shared(bool more_timed_to_come = false, const void* owner = nullptr);

    // Whether a run waits to be alone now.
    bool timed_runs_waiting() const;

    // Seconds, over every run so far, that the GPU was...
    double alone_seconds() const;    // held alone
    double shared_seconds() const;   // used by one or more sharers
    double held_up_seconds() const;  // shared while a run waited to be alone
    // Every thread's stretches so far: waiting to share, sharing, waiting to
    // be alone, alone.
    std::vector<gate_span> spans() const;

private:
    void account() const;  // adds the time since the last change to what the gate was doing then (mutex held)
    // Whether a new sharer may go in now (mutex held).
    // `pausable`: the run's processes are watched and the gate can pause
    // them, so the hold between another run's timed tests does not apply:
    // that run pauses it rather than wait for it.
    bool may_share(std::chrono::steady_clock::time_point now, bool pausable) const;
    // When the last patience of a sharer between timed tests runs out; none: none is (mutex held).
    std::optional<std::chrono::steady_clock::time_point> between_timed_ends() const;
    ticket admit_sharer(const void* owner);  // one more inside, sharing (mutex held)
    void drop_sharer(ticket which);          // out, its span closed (mutex held)
    void timed_runs_wait_from_now();  // the patience and "came after" start again (mutex held)
    // Stops the yielding sharers not yet stopped, each once (mutex held).
    void stop_yielding_sharers();
    // ... once they are in a waiting timed run's way: nothing else is inside
    // (or sharers may be paused, which a rerun under a tool cannot be) (mutex held).
    void stop_yielding_in_the_way();
    bool only_yielding_inside() const;  // (mutex held)
    // A run has waited its patience out to be alone behind a sharer that was
    // in before it began to wait: for a timed run, not a yielding one (that
    // one is stopped) (mutex held).
    bool overdue_behind_a_long_sharer(std::chrono::steady_clock::time_point now) const;
    // Whether a yielding sharer may go in now (mutex held).
    bool may_yield_in(std::chrono::steady_clock::time_point now) const;
    // Waits, for a sharer that may not go in yet, until the gate changes or
    // a patience runs out (mutex held by `lock`).
    void wait_for_a_change(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point now);
    // Tries to pause every sharer inside but `owner` (mutex held by `lock`,
    // released while the driver works); true once they all are.
    bool pause_sharers(const void* owner, std::unique_lock<std::mutex>& lock);
    void end_alone();  // the paused sharers go on (mutex held)
    void open_span(gate_span::kind_t kind, const void* owner);   // (mutex held)
    // The open one of this kind of `owner`, or of this thread where owner is null (mutex held).
    void close_span(gate_span::kind_t kind, const void* owner);

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::map<ticket, const void*> inside_;  // the sharers' tickets, one per run inside, and their runs
    struct yielding_sharer {
        std::function<void()> stop;
        bool stopped = false;
    };
    std::map<ticket, yielding_sharer> yielding_;  // those of inside_ that yield to timed runs
    int waiting_alone_ = 0;    // runs waiting to be alone: new sharers wait behind them
    int waiting_to_time_ = 0;  // those of them that wait to time a test: they stop yielding sharers
    // Sharers between two timed tests of theirs, and since when: new sharers
    // wait behind them too, for up to the patience.
    std::map<ticket, std::chrono::steady_clock::time_point> between_timed_;
    bool alone_ = false;
    std::chrono::milliseconds patience_;
    ticket next_ticket_ = 0;
    // Since when the timed runs have waited, and the first ticket of a sharer
    // that came after they began to.
    std::chrono::steady_clock::time_point waiting_since_;
    ticket came_after_ = 0;
    // Kept up to date by account(), also when only read.
    mutable std::chrono::steady_clock::time_point last_change_ = std::chrono::steady_clock::now();
    mutable std::chrono::duration<double> alone_total_{0}, shared_total_{0}, held_up_total_{0};
    std::vector<gate_span> spans_;

    // Pausing sharers.
    const process_pauser* pauser_;
    struct run_processes {
        bool watched = false;
        int starting = 0;          // processes being started, not yet registered
        std::vector<int> roots;    // the children the run started, still running
        bool paused = false;
        std::chrono::steady_clock::time_point paused_since;
        std::chrono::steady_clock::duration paused_total{};
    };
    std::map<const void*, run_processes> runs_;
    const void* alone_owner_ = nullptr;  // the run alone, or being made alone
    bool pausing_ = false;               // the driver is pausing sharers (mutex released)
    std::vector<int> paused_pids_;       // resumed when the alone run is done
    int last_refused_root_ = -1;         // the process tree the driver last could not pause
    mutable std::chrono::duration<double> paused_total_{0};
};

// A graded run's place at the gate: shared from construction, alone from
// alone() to shared_again() (one timed test: not the start-up of the process
// that runs it, nor the judge's check after it), and out on destruction.
// Without a gate it does nothing. With `places`, the run lends its place to
// work while it waits to be alone (work_places.hpp).
class gpu_turn {
public:
    // `watch_processes`: every process the run starts is registered
    // (process_slot), so that a timed run may pause it rather than wait for
    // this run to leave; it is so from before the run enters.
    explicit gpu_turn(gpu_gate* gate, work_places* places = nullptr, bool watch_processes = false);
    ~gpu_turn();
    gpu_turn(const gpu_turn&) = delete;
    gpu_turn& operator=(const gpu_turn&) = delete;

    // While alone, later calls do nothing.
    void alone(gpu_gate::alone_for why = gpu_gate::alone_for::timing);
    // Back to sharing, where alone; otherwise nothing. `more_timed_to_come`:
    // as for gpu_gate::alone_to_shared.
    void shared_again(bool more_timed_to_come = false);
    // While shared: step out and back in, so that a run waiting to be alone
    // goes first (the gate serves it before new sharers). Called between
    // long stretches of shared work (the sanitizer's reruns), so that one
    // run's explanations do not hold up every other run's timed tests.
    void let_waiting_runs_in();
    // Whether another run waits to be alone now (false without a gate).
    bool others_wait_to_be_alone() const;
    // An explanation's rerun, which yields to timed runs: the run gives up
    // its share, goes in again as a yielding sharer (gpu_gate::enter_yielding),
    // and calls `rerun` with `stop` armed. Returns false where a timed run
    // stopped it: the caller does it again, from the start. Afterwards the
    // run holds no share until let_waiting_runs_in() or another rerun.
    // Without a gate, runs `rerun` and returns true.
    bool rerun_yielding(const std::function<void()>& rerun, std::function<void()> stop);

    // How long this run's processes have been paused so far (their time
    // limits are extended by it).
    std::chrono::steady_clock::duration paused_for() const;
    // How long this run has waited to be alone so far, a wait in progress
    // included. Its programs' limits are extended by it too: the judge's test
    // that waits for a timed test's claim is running all that time (behind
    // another run's hang, once for 60 s on an H200, when a judge's limit
    // was 60 s: an honest test failed as timed out).
    std::chrono::steady_clock::duration waited_for_turns() const;

    // One process of the run, from just before it starts to its end.
    class process_slot {
    public:
        explicit process_slot(gpu_turn* turn);  // null: nothing to do
        ~process_slot();
        process_slot(const process_slot&) = delete;
        process_slot& operator=(const process_slot&) = delete;
        void started(int root);
    private:
        gpu_turn* turn_;
        int root_ = -1;
    };

private:
    gpu_gate* gate_;
    work_places* places_;
    std::optional<gpu_gate::ticket> ticket_;  // the run's share; none while it holds none
    bool alone_ = false;
    // Read by the judge's thread while the student's waits (alone()).
    mutable std::mutex waits_mutex_;
    std::chrono::steady_clock::duration waited_{};
    std::optional<std::chrono::steady_clock::time_point> waiting_since_;
};

}  // namespace grader
