// grader batch's engine parts that need no GPU: the gate that gives timed
// tests their GPU alone, and the per-submission build derived from the
// course's own build commands.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>
#include <thread>

#include "batch/engine.hpp"
#include "batch/explanation_queue.hpp"
#include "batch/measured_grading.hpp"
#include "batch/submission_build.hpp"
#include "batch/timeline.hpp"
#include "checkout/manifest.hpp"
#include "course/cpus.hpp"
#include "course/temp_dir.hpp"
#include "run/gpu_gate.hpp"
#include "run/gpu_pause.hpp"
#include "run/work_places.hpp"
#include "system/user_error.hpp"

namespace grader {
namespace {

using namespace std::chrono_literals;

// Until a thread that just began to wait to be alone does: a sleep of a
// fixed length is too short on a loaded machine (a CI run once saw a new
// sharer go in before the timed run had begun to wait).
void until_a_run_waits(const gpu_gate& gate) {
    for (int i = 0; i < 5000 && !gate.timed_runs_waiting(); ++i) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(gate.timed_runs_waiting()) << "no run began to wait to be alone";
}

TEST(GpuGate, SharersShareAndAloneWaitsForThemAll) {
    gpu_gate gate;
    const auto first = gate.enter_shared();
    const auto second = gate.enter_shared();  // a second sharer does not wait
    std::atomic<bool> alone{false};
    std::thread timed([&] {
        gate.enter_alone();
        alone = true;
        gate.leave_alone();
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(alone) << "a timed run started while two runs shared the GPU";
    gate.leave_shared(first);
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(alone) << "a timed run started while one run still shared the GPU";
    gate.leave_shared(second);
    timed.join();
    EXPECT_TRUE(alone);
}

TEST(GpuGate, AWaitingTimedRunGoesBeforeNewSharers) {
    gpu_gate gate;
    const auto first = gate.enter_shared();
    std::atomic<int> order{0};
    int timed_at = 0, sharer_at = 0;
    std::thread timed([&] {
        gate.enter_alone();
        timed_at = ++order;
        std::this_thread::sleep_for(20ms);
        gate.leave_alone();
    });
    std::this_thread::sleep_for(50ms);  // the timed run is waiting now
    std::thread sharer([&] {
        const auto mine = gate.enter_shared();
        sharer_at = ++order;
        gate.leave_shared(mine);
    });
    std::this_thread::sleep_for(50ms);
    gate.leave_shared(first);
    timed.join();
    sharer.join();
    EXPECT_EQ(timed_at, 1) << "a stream of correctness tests must not starve timing";
    EXPECT_EQ(sharer_at, 2);
}

TEST(GpuGate, ARunExplainingItsFailuresLetsAWaitingTimedRunGoFirst) {
    gpu_gate gate;
    gpu_turn explaining(&gate);  // shared: its long sanitizer reruns
    std::atomic<bool> timed_done{false};
    std::thread timed([&] {
        gpu_turn turn(&gate);
        turn.alone();
        std::this_thread::sleep_for(20ms);
        timed_done = true;
    });
    until_a_run_waits(gate);  // the timed run waits for the explaining one
    EXPECT_FALSE(timed_done);
    explaining.let_waiting_runs_in();  // between two reruns
    EXPECT_TRUE(timed_done) << "back in only once the timed run was done";
    timed.join();
    gpu_turn alone(nullptr);
    alone.let_waiting_runs_in();  // no gate: nothing to do
}

// Explanations yield (issue: a class of 300 in 15 minutes), on a made-up
// timeline, in ms from the start:
//      0  a run explaining its failures starts a 1 s compute-sanitizer rerun
//         (here a wait that ends early when stopped);
//    100  another run's timed test starts to wait for the GPU alone: the
//         rerun is stopped, and the timed test does not wait out its second;
//         it holds the GPU alone for 200 ms;
//  after  the rerun is done again, from the start, once the timed test is
//         done, and runs whole.
TEST(GpuGate, ATimedTestStopsARerunWhichIsDoneAgainAfterIt) {
    using clock = std::chrono::steady_clock;
    gpu_gate gate;
    const auto t0 = clock::now();
    auto now_ms = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0).count(); };
    std::atomic<long long> alone_from{-1}, alone_until{-1};
    std::thread timed([&] {
        std::this_thread::sleep_for(100ms);
        gpu_turn turn(&gate);
        turn.alone();
        alone_from = now_ms();
        std::this_thread::sleep_for(200ms);
        alone_until = now_ms();
    });  // leaves on destruction
    struct attempt {
        long long start = 0, end = 0;
        bool whole = false;
    };
    std::vector<attempt> attempts;
    gpu_turn explaining(&gate);
    for (;;) {
        std::atomic<bool> stop{false};
        attempt a;
        a.whole = explaining.rerun_yielding(
            [&] {
                a.start = now_ms();
                for (int i = 0; i < 100 && !stop; ++i) std::this_thread::sleep_for(10ms);
                a.end = now_ms();
            },
            [&stop] { stop = true; });
        attempts.push_back(a);
        if (a.whole || attempts.size() > 3) break;
    }
    timed.join();
    ASSERT_EQ(attempts.size(), 2u) << "stopped once, then done whole";
    EXPECT_FALSE(attempts[0].whole);
    EXPECT_LT(attempts[0].end, 400) << "the rerun ran on after the timed test began to wait (at 100 ms)";
    EXPECT_LT(alone_from, 400) << "the timed test waited for the rerun";
    EXPECT_TRUE(attempts[1].whole);
    EXPECT_GE(attempts[1].start, alone_until) << "the rerun was done again while the timed test held the GPU";
    EXPECT_GE(attempts[1].end - attempts[1].start, 990) << "done again from the start";
}

// No rerun starts while a timed test waits for the GPU (within its
// patience) or holds it alone.
TEST(GpuGate, ARerunWaitsForTimedTestsToBeDone) {
    gpu_gate gate;
    const auto sharer = gate.enter_shared();  // a correctness test the timed run waits for
    std::atomic<bool> alone{false}, ran{false};
    std::thread timed([&] {
        gate.enter_alone();
        alone = true;
        std::this_thread::sleep_for(50ms);
        gate.leave_alone();
    });
    until_a_run_waits(gate);  // the timed run waits now
    std::thread explaining([&] {
        const auto mine = gate.enter_yielding([] {});
        ran = true;
        EXPECT_FALSE(gate.leave_yielding(mine)) << "stopped with no timed run waiting";
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(ran) << "a rerun started while a timed run waited";
    gate.leave_shared(sharer);
    std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(alone);
    EXPECT_FALSE(ran) << "a rerun started beside a timed run";
    timed.join();
    explaining.join();
    EXPECT_TRUE(ran);
}

// Behind a hang, a rerun need not wait with the timed run (ms, patience 100):
//      0  a hang holds its share of the GPU (until 400);
//     20  a timed run starts to wait for the GPU alone;
//     50  a rerun asks to go in: it waits for the timed run's patience;
//  ~120  the patience is out, the hang still in: the rerun goes in beside it;
//    400  the hang leaves: the rerun, all the timed run waits for now, is
//         stopped, and the timed run goes in.
TEST(GpuGate, BehindAHangARerunGoesInOnceATimedRunHasWaitedItsPatienceOutAndIsStoppedWhenTheHangLeaves) {
    using clock = std::chrono::steady_clock;
    gpu_gate gate(100ms);
    const auto t0 = clock::now();
    auto now_ms = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0).count(); };
    const auto hang = gate.enter_shared();
    std::atomic<long long> alone_from{-1};
    std::thread timed([&] {
        std::this_thread::sleep_for(20ms);
        gate.enter_alone();
        alone_from = now_ms();
        gate.leave_alone();
    });
    std::this_thread::sleep_for(50ms);
    std::atomic<long long> stopped_at{-1};
    const auto rerun = gate.enter_yielding([&] { stopped_at = now_ms(); });
    const long long rerun_in = now_ms();
    EXPECT_GE(rerun_in, 110) << "the rerun went in before the timed run had waited its patience out";
    EXPECT_LT(rerun_in, 300) << "the rerun waited for the hang";
    std::this_thread::sleep_for(std::chrono::milliseconds(400 - now_ms()));
    gate.leave_shared(hang);
    EXPECT_GE(stopped_at, 400) << "stopped while the timed run still waited for the hang";
    std::this_thread::sleep_for(30ms);
    EXPECT_EQ(alone_from, -1) << "the timed run went in beside the rerun";
    EXPECT_TRUE(gate.leave_yielding(rerun)) << "not stopped when it was all the timed run waited for";
    timed.join();
    EXPECT_GE(alone_from, stopped_at);
}

// A rerun is stopped only once it would hold up a timed run: while the timed
// run still waits for a correctness test of another run, the rerun goes on.
TEST(GpuGate, ARerunRunsOnWhileATimedRunWaitsForOtherSharers) {
    gpu_gate gate;
    std::atomic<bool> stopped{false}, alone{false};
    const auto rerun = gate.enter_yielding([&] { stopped = true; });
    const auto sharer = gate.enter_shared();  // a correctness test of another run
    std::thread timed([&] {
        gate.enter_alone();
        alone = true;
        gate.leave_alone();
    });
    until_a_run_waits(gate);  // the timed run waits now
    EXPECT_FALSE(stopped) << "stopped while the timed run still waited for another sharer";
    gate.leave_shared(sharer);
    EXPECT_TRUE(stopped) << "not stopped when it was all the timed run waited for";
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(alone) << "the timed run went in beside the rerun";
    EXPECT_TRUE(gate.leave_yielding(rerun));
    timed.join();
    EXPECT_TRUE(alone);
}

// A profile wants the GPU alone too, but it is an explanation: the reruns
// inside are waited for, not stopped (their work would be thrown away), and
// no new one goes in meanwhile.
TEST(GpuGate, AProfileWaitsForARerunInsteadOfStoppingIt) {
    gpu_gate gate;
    std::atomic<bool> stopped{false}, profiling{false}, late_in{false};
    const auto rerun = gate.enter_yielding([&] { stopped = true; });
    std::thread profile([&] {
        gate.enter_alone(nullptr, std::nullopt, gpu_gate::alone_for::profiling);
        profiling = true;
        std::this_thread::sleep_for(30ms);
        gate.leave_alone();
    });
    until_a_run_waits(gate);  // the profile waits now
    std::thread late([&] {
        const auto mine = gate.enter_yielding([] {});
        late_in = true;
        EXPECT_TRUE(profiling) << "a new rerun went in before the waiting profile";
        gate.leave_yielding(mine);
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(stopped) << "a profile stopped a rerun";
    EXPECT_FALSE(profiling) << "the profile went in beside the rerun";
    EXPECT_FALSE(late_in) << "a new rerun went in while a profile waited";
    EXPECT_FALSE(gate.leave_yielding(rerun)) << "the rerun was told to do its work again";
    profile.join();
    late.join();
    EXPECT_TRUE(profiling);
    EXPECT_TRUE(late_in);
}

// Behind a long rerun (a racecheck of 20 s), a waiting profile holds new
// reruns back only for its patience, as a timed run does behind a hang; once
// that rerun has left, new ones wait for the profile again.
TEST(GpuGate, BehindALongRerunAProfileHoldsNewRerunsBackOnlyForItsPatience) {
    gpu_gate gate(100ms);
    const auto long_rerun = gate.enter_yielding([] {});
    std::atomic<bool> profiled{false};
    std::thread profile([&] {
        gate.enter_alone(nullptr, std::nullopt, gpu_gate::alone_for::profiling);
        profiled = true;
        gate.leave_alone();
    });
    until_a_run_waits(gate);  // the profile waits now
    const auto t0 = std::chrono::steady_clock::now();
    const auto beside = gate.enter_yielding([] {});
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(waited, 50ms) << "a new rerun went in before the profile had waited its patience out";
    EXPECT_LT(waited, 2s);
    gate.leave_yielding(long_rerun);
    std::atomic<bool> late_in{false};
    std::thread late([&] {
        const auto mine = gate.enter_yielding([] {});
        late_in = true;
        EXPECT_TRUE(profiled) << "once the long rerun had left, a new rerun went before the profile";
        gate.leave_yielding(mine);
    });
    std::this_thread::sleep_for(250ms);
    EXPECT_FALSE(late_in);
    EXPECT_FALSE(profiled) << "the profile went in beside a rerun";
    EXPECT_FALSE(gate.leave_yielding(beside));
    profile.join();
    late.join();
    EXPECT_TRUE(late_in);
}

// A hang holds its share of the GPU up to its time limit, and a timed run
// waits for it: once the timed run has waited its patience out, new sharers
// go in beside the hang; once the hang has left, they wait again.
TEST(GpuGate, BehindALongSharerNewSharersGoInOnceATimedRunHasWaitedItsPatienceOut) {
    gpu_gate gate(100ms);
    const auto hang = gate.enter_shared();
    std::atomic<bool> timed_in{false};
    std::thread timed([&] {
        gate.enter_alone();
        timed_in = true;
        gate.leave_alone();
    });
    until_a_run_waits(gate);  // the timed run is waiting
    const auto t0 = std::chrono::steady_clock::now();
    const auto beside = gate.enter_shared();
    const auto waited = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(waited, 50ms) << "a new sharer went in before the timed run had waited its patience out";
    EXPECT_LT(waited, 2s);
    gate.leave_shared(hang);
    std::atomic<bool> late_in{false};
    std::thread late([&] {
        const auto mine = gate.enter_shared();
        late_in = true;
        EXPECT_TRUE(timed_in) << "once the long sharer had left, a new sharer went before the timed run";
        gate.leave_shared(mine);
    });
    std::this_thread::sleep_for(250ms);  // past the patience: it waits all the same
    EXPECT_FALSE(late_in);
    EXPECT_FALSE(timed_in) << "the timed run went in beside a sharer";
    gate.leave_shared(beside);
    timed.join();
    late.join();
    EXPECT_TRUE(late_in);
}

// A run holds the GPU alone only while a timed test runs: then it shares it
// at once (its judge may still be checking), and others may join.
TEST(GpuGate, ARunIsAloneOnlyWhileItsTimedTestRuns) {
    gpu_gate gate;
    auto run = std::make_unique<gpu_turn>(&gate);
    run->alone();
    std::atomic<bool> other_in{false};
    std::thread other([&] {
        gpu_turn turn(&gate);
        other_in = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(other_in) << "a sharer went in during a timed test";
    run->shared_again();
    other.join();
    EXPECT_TRUE(other_in);
    std::atomic<bool> timed_in{false};
    std::thread timed([&] {
        gpu_turn turn(&gate);
        turn.alone();
        timed_in = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(timed_in) << "another run's timed test started while this run still shared the GPU";
    run.reset();
    timed.join();
    EXPECT_TRUE(timed_in);
}

// Between two timed tests of one run (its judge's check, its next process
// starting), new sharers wait, or it would wait for all of them to finish;
// but only for the gate's patience.
TEST(GpuGate, BetweenTwoTimedTestsOfARunNewSharersWaitForUpToThePatience) {
    // A patience long enough that a loaded machine's late wake-ups (CI's two
    // cores run several tests at once) stay well inside it.
    gpu_gate gate(1s);
    auto run = std::make_unique<gpu_turn>(&gate);
    run->alone();
    run->shared_again(true);  // another timed test comes
    std::atomic<bool> other_in{false};
    std::thread other([&] {
        gpu_turn turn(&gate);
        other_in = true;
    });
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(other_in) << "a sharer went in between two timed tests of a run";
    run->alone();  // not behind the sharer: its share goes in the same step as it starts to wait
    EXPECT_FALSE(other_in) << "a sharer slipped in as the run turned to its next timed test";
    run->shared_again(true);
    const auto between = std::chrono::steady_clock::now();
    other.join();  // the run is slow to start its next test: the sharer goes in once the patience is out
    const auto waited = std::chrono::steady_clock::now() - between;
    EXPECT_GE(waited, 900ms);
    EXPECT_LT(waited, 3s);
    run.reset();

    gpu_turn last(&gate);
    last.alone();
    last.shared_again(false);  // its last timed test: sharers go in at once
    std::atomic<bool> next_in{false};
    std::thread next([&] {
        gpu_turn turn(&gate);
        next_in = true;
    });
    // Well before the patience (a loaded machine may take a while to wake it).
    for (int i = 0; i < 100 && !next_in; ++i) std::this_thread::sleep_for(5ms);
    EXPECT_TRUE(next_in) << "a sharer waited after a run's last timed test";
    next.join();
}

// A batch fails closed without what its lesson's tests need, as without the
// sandbox (batch/engine.hpp, refuse_without_grading_needs): here a grader
// built without libelf (the lookup that asks reads_device_code() replaced),
// on a machine and build that have everything else.
TEST(BatchEngine, WithoutLibelfABatchOfReplayedSpeedTestsRefusesNamingItAndTheFix) {
    course::temp_dir dir("batch-needs");
    manifest m;
    m.gpu_recorder = dir.path() / "libcourse_gpu_recorder.so";
    m.threads_only_launcher = dir.path() / "course-threads-only";
    std::ofstream(m.gpu_recorder) << "";
    std::ofstream(m.threads_only_launcher) << "";
    const fs::path tool = dir.path() / "tool";
    std::ofstream(tool) << "";
    grading_lookups lookups{[&] { return bubblewrap_search{tool, ""}; },
                            [&] { return std::optional<fs::path>(tool); },
                            [&] { return std::optional<fs::path>(tool); },
                            [] { return true; },
                            [] { return true; },
                            [] { return std::optional<bool>(false); }};
    listed_test replayed;
    replayed.id = "VecAddPerf.Bandwidth";
    replayed.alone = replayed.kernel_speed = replayed.timed_by_judge = true;
    listed_test correctness;
    correctness.id = "VecAdd.Large";

    // With libelf: graded.
    EXPECT_NO_THROW(refuse_without_grading_needs(observe_grading_needs(&m, lookups), {correctness, replayed}, true, false));

    lookups.reads_device_code = [] { return false; };
    const grading_facts without_libelf = observe_grading_needs(&m, lookups);
    try {
        refuse_without_grading_needs(without_libelf, {correctness, replayed}, /*gpus_here=*/false, /*no_sandbox=*/false);
        ADD_FAILURE() << "a batch of replayed speed tests went on without libelf";
    } catch (const user_error& e) {
        const std::string said = e.what();
        EXPECT_EQ(e.code, build_error);
        EXPECT_NE(said.find("nothing was graded"), std::string::npos) << said;
        EXPECT_NE(said.find("- libelf: the grader was built without libelf"), std::string::npos) << said;
        EXPECT_NE(said.find("fix: apt-get install libelf-dev"), std::string::npos) << said;
        EXPECT_EQ(said.find("ncu"), std::string::npos) << "only what is missing is named: " << said;
    }
    // A lesson the judge times nothing of by replay needs no libelf.
    EXPECT_NO_THROW(refuse_without_grading_needs(without_libelf, {correctness}, true, false));
}

TEST(BatchEngine, GradesAboutOneSubmissionPerThreeCpusOnEachGpu) {
    EXPECT_EQ(graders_for(16, 1), 5);   // the course's H200 machine
    EXPECT_EQ(graders_for(24, 2), 4);
    EXPECT_EQ(graders_for(4, 1), 2);    // a Slurm task's four CPUs: still two, so that timed tests overlap others
    EXPECT_EQ(graders_for(128, 8), 5);  // more would slow each other's tools down
    EXPECT_EQ(graders_for(8, 0), 2);    // no GPU: the host tests only
    EXPECT_GE(course::usable_cpus(), 1);
}

// Items are numbers; the even ones have a profile to take (they go first).
explanation_queue<int> numbers_queue(std::size_t capacity) {
    return {capacity, [](const int& n) { return n % 2 == 0; }};
}

TEST(WorkPlaces, ARunWaitingForTheGpuAloneLendsItsPlaceToTheNextSubmission) {
    gpu_gate gate;
    work_places places(1);
    gpu_turn sharer(&gate);  // another run's correctness tests hold the GPU
    std::atomic<bool> waiting{false}, timed_done{false};
    std::thread timed([&] {
        work_place place(&places);
        gpu_turn turn(&gate, &places);
        waiting = true;
        turn.alone();  // waits for the sharer, its place lent meanwhile
        timed_done = true;
    });
    while (!waiting) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(50ms);
    ASSERT_FALSE(timed_done);
    std::atomic<bool> next_took{false};
    std::thread next([&] {
        work_place place(&places);  // the one place is taken: only a loan lets this in
        next_took = true;
    });
    for (int i = 0; i < 200 && !next_took; ++i) std::this_thread::sleep_for(5ms);
    EXPECT_TRUE(next_took) << "a run waiting to be alone kept its place: the next submission could not start";
    next.join();
    // Step out only once the timed run waits at the gate, or the sharer would
    // be back in before it asked.
    auto waits_at_the_gate = [&] {
        const auto spans = gate.spans();
        return std::any_of(spans.begin(), spans.end(),
                           [](const gate_span& s) { return s.kind == gate_span::waiting_alone; });
    };
    while (!waits_at_the_gate()) std::this_thread::sleep_for(1ms);
    sharer.let_waiting_runs_in();
    timed.join();
    EXPECT_EQ(places.working(), 0);
}

TEST(WorkPlaces, ARunTakesItsPlaceBackOnceAloneEvenWithNoneFree) {
    work_places places(1);
    places.take();
    places.lend();
    places.take();     // the next submission
    places.take_back();  // the first may run its timed test now: it does not wait
    EXPECT_EQ(places.working(), 2);
    std::atomic<bool> third_took{false};
    std::thread third([&] {
        places.take();
        third_took = true;
        places.give_back();
    });
    std::this_thread::sleep_for(50ms);
    places.give_back();
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(third_took) << "a place was given out while both runs over the count still worked";
    places.give_back();
    third.join();
    EXPECT_TRUE(third_took);
}

// The graders' places go to the explainers once nothing is left to judge.
TEST(WorkPlaces, APlaceAddedLetsOneMoreWorkAtOnce) {
    work_places places(1);
    places.take();
    std::atomic<bool> second_took{false};
    std::thread second([&] {
        places.take();
        second_took = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(second_took);
    places.add();
    second.join();
    EXPECT_TRUE(second_took);
    EXPECT_EQ(places.working(), 2);
}

TEST(ExplanationQueue, ProfilesFirstThenInTheOrderJudged) {
    auto queue = numbers_queue(8);
    for (int n : {1, 3, 4, 5, 6}) queue.put(n);
    queue.close();
    std::vector<int> taken;
    while (auto n = queue.take()) taken.push_back(*n);
    EXPECT_EQ(taken, (std::vector<int>{4, 6, 1, 3, 5}));
}

// After the profiles, the costliest first (its cost here: the number
// itself), so that the longest reruns do not end the batch alone; equals in
// the order judged.
TEST(ExplanationQueue, ProfilesFirstThenTheCostliestFirst) {
    explanation_queue<int> queue(8, [](int n) { return n % 2 == 0; }, [](int n) { return n % 10; });
    for (int n : {11, 3, 4, 25, 6, 13, 7}) queue.put(n);
    queue.close();
    std::vector<int> taken;
    while (auto n = queue.take()) taken.push_back(*n);
    EXPECT_EQ(taken, (std::vector<int>{4, 6, 7, 25, 3, 13, 11}));
}

// A profile takes the GPU alone, so it waits until every submission is
// judged: taken earlier, it held the graders' tests back.
TEST(ExplanationQueue, ProfilesWaitUntilEverySubmissionIsJudged) {
    auto queue = numbers_queue(8);
    queue.put(4);
    queue.put(1);
    EXPECT_EQ(queue.take(), 1);
    std::atomic<bool> took{false};
    std::optional<int> profile;
    std::thread explainer([&] {
        profile = queue.take();
        took = true;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(took) << "a profile was taken while submissions could still come to be judged";
    queue.close();
    explainer.join();
    EXPECT_EQ(profile, 4);
    EXPECT_EQ(queue.take(), std::nullopt);
}

// A queue full of profiles lets one go before the end: a grader must never
// wait for room that only the end would make.
TEST(ExplanationQueue, AQueueFullOfProfilesLetsTheFirstGo) {
    auto queue = numbers_queue(2);
    queue.put(4);
    queue.put(6);
    EXPECT_EQ(queue.take(), 4);
    queue.put(1);
    EXPECT_EQ(queue.take(), 1) << "a profile went before the end although the queue was no longer full of them";
}

// Explainers wait for work until the graders are done; a grader waits for
// room when too many wait (each keeps its scratch folder on disk).
TEST(ExplanationQueue, ExplainersWaitForWorkAndGradersForRoom) {
    auto queue = numbers_queue(1);
    std::atomic<int> explained{0};
    std::thread explainer([&] {
        while (auto n = queue.take()) explained += *n;
    });
    std::this_thread::sleep_for(30ms);
    EXPECT_EQ(explained, 0) << "an explainer took something before anything was judged";
    queue.put(1);
    queue.put(3);  // may wait for the explainer to take the 1
    queue.put(5);
    queue.close();
    explainer.join();
    EXPECT_EQ(explained, 9) << "closing lost what was waiting";
}

// Stands in for the driver's checkpoint lock (gpu_pause.hpp, tested on the
// GPU by GpuPause.*): notes what it was asked, and pauses a tree unless told
// that it cannot.
class noting_pauser final : public process_pauser {
public:
    std::optional<std::vector<int>> pause_tree(int root, std::chrono::milliseconds) const override {
        std::lock_guard lock(mutex_);
        if (refuse) return std::nullopt;
        paused.push_back(root);
        return std::vector<int>{root};
    }
    void resume(const std::vector<int>& pids) const override {
        std::lock_guard lock(mutex_);
        resumed.insert(resumed.end(), pids.begin(), pids.end());
    }
    std::atomic<bool> refuse{false};
    mutable std::vector<int> paused, resumed;
    mutable std::mutex mutex_;
};

TEST(GpuGate, ATimedRunPausesTheSharersProcessesInsteadOfWaitingForThemToLeave) {
    noting_pauser pauser;
    gpu_gate gate(gpu_gate::default_patience, &pauser);
    gpu_turn sharer(&gate, nullptr, /*watch_processes=*/true);
    std::optional<gpu_turn::process_slot> process(&sharer);
    process->started(4242);
    std::atomic<bool> alone{false}, done{false};
    std::thread timed([&] {
        gpu_turn turn(&gate);
        turn.alone();
        alone = true;
        std::this_thread::sleep_for(40ms);
        EXPECT_GE(sharer.paused_for(), 30ms) << "the sharer's time limits must not count the pause";
        turn.shared_again();
        done = true;
    });
    timed.join();  // the sharer never left
    EXPECT_TRUE(alone && done);
    EXPECT_EQ(pauser.paused, std::vector<int>{4242});
    EXPECT_EQ(pauser.resumed, std::vector<int>{4242}) << "the sharer must go on once the timed test is done";
    EXPECT_GE(gate.paused_seconds(), 0.035);
    process.reset();
}

TEST(GpuGate, ASharerThatCannotBePausedOrIsNotWatchedIsWaitedFor) {
    noting_pauser pauser;
    pauser.refuse = true;  // a kernel still running, or a run under compute-sanitizer
    gpu_gate gate(gpu_gate::default_patience, &pauser);
    for (bool watched : {true, false}) {
        auto sharer = std::make_unique<gpu_turn>(&gate, nullptr, watched);
        std::optional<gpu_turn::process_slot> process;
        if (watched) {
            process.emplace(sharer.get());
            process->started(4242);
        }
        std::atomic<bool> alone{false};
        std::thread timed([&] {
            gpu_turn turn(&gate);
            turn.alone();
            alone = true;
        });
        std::this_thread::sleep_for(80ms);
        EXPECT_FALSE(alone) << (watched ? "a sharer the driver could not pause" : "a sharer whose processes are not known")
                            << " was not waited for";
        process.reset();
        sharer.reset();
        timed.join();
        EXPECT_TRUE(alone);
    }
    EXPECT_TRUE(pauser.resumed.empty());
}

// Where sharers are paused, a timed run stops reruns as soon as it waits:
// none goes in beside a hang, however long the timed run waits.
TEST(GpuGate, WhereSharersArePausedNoRerunGoesInWhileATimedRunWaits) {
    noting_pauser pauser;
    pauser.refuse = true;  // a kernel that does not end
    gpu_gate gate(50ms, &pauser);
    const int hanging_run = 0;
    const auto hang = gate.enter_shared(&hanging_run);
    std::atomic<bool> alone{false}, ran{false};
    std::thread timed([&] {
        gate.enter_alone();
        alone = true;
        gate.leave_alone();
    });
    until_a_run_waits(gate);  // the timed run waits now
    std::thread explaining([&] {
        const auto mine = gate.enter_yielding([] {});
        ran = true;
        EXPECT_TRUE(alone) << "a rerun went in while a timed run waited, where sharers are paused";
        gate.leave_yielding(mine);
    });
    std::this_thread::sleep_for(200ms);  // past the patience
    EXPECT_FALSE(ran);
    gate.leave_shared(hang);
    timed.join();
    explaining.join();
    EXPECT_TRUE(ran);
}

TEST(GpuGate, NoSharerStartsAProcessWhileAnotherRunIsAlone) {
    noting_pauser pauser;
    gpu_gate gate(gpu_gate::default_patience, &pauser);
    gpu_turn sharer(&gate, nullptr, /*watch_processes=*/true);
    gpu_turn timed(&gate);
    timed.alone();  // nothing to pause: the sharer has no process yet
    std::atomic<bool> started{false};
    std::thread starting([&] {
        gpu_turn::process_slot process(&sharer);
        started = true;
        process.started(99);
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(started) << "a sharer's process started while a timed test had the GPU alone";
    {
        gpu_turn::process_slot own(&timed);  // the run that is alone starts its own at once
    }
    timed.shared_again();
    starting.join();
    EXPECT_TRUE(started);
}

// Where the gate can pause them, sharers whose processes it knows go in
// between two timed tests of a run (it pauses them for its next one); the
// others (the explainers' reruns under compute-sanitizer) still wait.
TEST(GpuGate, BetweenTwoTimedTestsOfARunSharersThatCanBePausedGoInAtOnce) {
    noting_pauser pauser;
    gpu_gate gate(2s, &pauser);
    gpu_turn run(&gate);
    run.alone();
    run.shared_again(true);  // another timed test comes
    std::atomic<bool> watched_in{false}, unwatched_in{false};
    std::thread watched([&] {
        gpu_turn turn(&gate, nullptr, /*watch_processes=*/true);
        watched_in = true;
    });
    std::thread unwatched([&] {
        gpu_turn turn(&gate);
        unwatched_in = true;
    });
    for (int i = 0; i < 200 && !watched_in; ++i) std::this_thread::sleep_for(5ms);  // well before the patience
    EXPECT_TRUE(watched_in) << "a sharer the next timed test could pause waited between two timed tests";
    EXPECT_FALSE(unwatched_in) << "a sharer that cannot be paused went in between two timed tests of a run";
    run.shared_again(false);  // nothing to do: it is sharing
    run.alone();
    run.shared_again(false);  // its last timed test
    watched.join();
    unwatched.join();
}

TEST(GpuGate, CountsTheTimeHeldAlone) {
    gpu_gate gate;
    {
        gpu_turn turn(&gate);
        turn.alone();
        turn.alone();  // once is enough
        std::this_thread::sleep_for(30ms);
    }
    EXPECT_GE(gate.alone_seconds(), 0.025);
    EXPECT_LT(gate.alone_seconds(), 1.0);
    gpu_turn nothing(nullptr);  // no gate: nothing to wait for
    nothing.alone();
}

TEST(GpuGate, KeepsATimelineOfSharedTimeAndOfTimedRunsHeldUp) {
    gpu_gate gate;
    auto sharer = std::make_unique<gpu_turn>(&gate);
    std::this_thread::sleep_for(40ms);  // shared, nobody waiting
    std::thread timed([&] {
        gpu_turn turn(&gate);
        turn.alone();  // held up until the sharer leaves
        std::this_thread::sleep_for(40ms);
    });
    // From when the timed run waits (a loaded machine may start its thread late).
    auto waiting = [&] {
        const auto spans = gate.spans();
        return std::any_of(spans.begin(), spans.end(), [](const gate_span& s) {
            return s.kind == gate_span::waiting_alone && s.end == s.start;
        });
    };
    for (int i = 0; i < 1000 && !waiting(); ++i) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(waiting());
    std::this_thread::sleep_for(60ms);  // shared, a timed run waiting
    sharer.reset();
    timed.join();
    std::this_thread::sleep_for(30ms);  // idle: counted nowhere
    // The upper bounds are loose: sleeps overshoot on a loaded machine.
    EXPECT_GE(gate.shared_seconds(), 0.095);
    EXPECT_LT(gate.shared_seconds(), 2.0);
    EXPECT_GE(gate.held_up_seconds(), 0.055);
    EXPECT_LT(gate.held_up_seconds(), gate.shared_seconds() - 0.035) << "the first 40 ms held nobody up";
    EXPECT_GE(gate.alone_seconds(), 0.035);
    EXPECT_LT(gate.alone_seconds(), 2.0);
}

// The scores are final when the last judging (or failed build) ends, not the
// last explanation.
TEST(BatchTimeline, TheScoresAreFinalWhenTheLastJudgingEnds) {
    const std::vector<submission_timeline> timeline{
        {"ada", {{"build", 0.0, 2.0}, {"judge", 2.0, 9.5}, {"explain", 9.5, 30.0}}},
        {"bob", {{"build", 1.0, 3.0}, {"judge", 4.0, 12.0}, {"explain_shared", 12.0, 20.0}}},
        {"cy", {{"build", 0.0, 13.0}}},  // did not build: its zero is known then
    };
    EXPECT_EQ(scores_final_seconds(timeline), 13.0);
    EXPECT_EQ(scores_final_seconds({}), 0.0);
}

// The batch's timeline gives each gate span to the submission its thread was
// judging at the time.
TEST(BatchTimeline, GivesTheGatesSpansToTheSubmissionBeingJudged) {
    const auto started = std::chrono::steady_clock::now();
    batch_timeline timeline(started);
    gpu_gate gate;
    std::thread grader([&] {
        const auto t0 = std::chrono::steady_clock::now();
        {
            gpu_turn turn(&gate);
            std::this_thread::sleep_for(20ms);
            turn.alone();
            std::this_thread::sleep_for(20ms);
        }
        timeline.record("ada", "judge", t0, std::chrono::steady_clock::now());
        { gpu_turn stray(&gate); }  // judging no one: left out
        const auto t1 = std::chrono::steady_clock::now();
        { gpu_turn rerun(&gate); }  // explaining bob's failures
        timeline.record("bob", "explain", t1, std::chrono::steady_clock::now());
    });
    grader.join();
    timeline.record("ada", "build", started, started + 5ms);  // another thread's
    const auto composed = timeline.compose(gate.spans());
    ASSERT_EQ(composed.size(), 2u);
    ASSERT_EQ(composed[1].student, "bob");
    ASSERT_EQ(composed[1].spans.size(), 3u);
    EXPECT_EQ(composed[1].spans[2].kind, "explain_shared");
    EXPECT_EQ(composed[0].student, "ada");
    std::vector<std::string> kinds;
    for (const auto& span : composed[0].spans) kinds.push_back(span.kind);
    EXPECT_EQ(kinds, (std::vector<std::string>{"build", "judge", "queued", "shared", "waiting_alone", "alone"}));
    for (const auto& span : composed[0].spans) EXPECT_LE(span.start, span.end) << span.kind;
    EXPECT_GE(composed[0].spans[3].end - composed[0].spans[3].start, 0.015) << "shared for 20 ms";
}

// A run's timed test may wait for the GPU on a thread of its own and be done
// on another (the judge's): its spans still
// go to the submission the run was judging, and a later run at the same
// address on another thread to its own.
TEST(BatchTimeline, GivesARunsSpansFromItsOtherThreadsToItsSubmission) {
    const auto started = std::chrono::steady_clock::now();
    batch_timeline timeline(started);
    gpu_gate gate;
    auto judge = [&](const std::string& student) {
        const auto t0 = std::chrono::steady_clock::now();
        {
            gpu_turn turn(&gate);
            std::thread([&] { turn.alone(); }).join();  // the timed test's own thread
            std::this_thread::sleep_for(20ms);
            std::thread([&] { turn.shared_again(); }).join();  // the judge's
        }
        timeline.record(student, "judge", t0, std::chrono::steady_clock::now());
    };
    std::thread(judge, "ada").join();
    std::thread(judge, "bob").join();
    const auto composed = timeline.compose(gate.spans());
    ASSERT_EQ(composed.size(), 2u);
    for (const auto& submission : composed) {
        std::vector<std::string> kinds;
        double alone = 0;
        for (const auto& span : submission.spans) {
            kinds.push_back(span.kind);
            if (span.kind == "alone") alone = span.end - span.start;
        }
        EXPECT_EQ(kinds, (std::vector<std::string>{"judge", "queued", "shared", "waiting_alone", "alone", "shared"}))
            << submission.student;
        EXPECT_GE(alone, 0.015) << submission.student << ": alone for 20 ms, closed on another thread";
    }
}

// The course's own build (this test's), lesson04: a lesson with two sources.
// grader verify's measured times, kept in the build folder for the Slurm
// engine: read back as written; scaled to a longer per-test limit (a hang
// runs to it) and by the margin; a file for another lesson, or a damaged
// one, is no measurement.
TEST(MeasuredGrading, IsKeptInTheBuildFolderAndScaledToTheBatchsLimits) {
    const course::temp_dir build("measured-grading");
    EXPECT_FALSE(load_measured_grading(build.path(), "lesson07"));
    save_measured_grading(build.path(), {"lesson07", "NVIDIA H200 (sm_90)", "2026-11-29T00:00:00Z", 15, 22, 12.5,
                                         "mutant tiled_missing_sync_after_load"});
    const auto read = load_measured_grading(build.path(), "lesson07");
    ASSERT_TRUE(read);
    EXPECT_EQ(read->runs, 22);
    EXPECT_EQ(read->slowest, "mutant tiled_missing_sync_after_load");
    EXPECT_DOUBLE_EQ(seconds_per_submission(*read, 15), 12.5 * 3);
    EXPECT_DOUBLE_EQ(seconds_per_submission(*read, 60), 12.5 * 4 * 3) << "tests four times longer";
    EXPECT_DOUBLE_EQ(seconds_per_submission(*read, 5), 12.5 * 3) << "never scaled down";
    std::filesystem::copy_file(measured_grading_file(build.path(), "lesson07"),
                               measured_grading_file(build.path(), "lesson01"));
    EXPECT_FALSE(load_measured_grading(build.path(), "lesson01")) << "another lesson's times";
    std::ofstream(measured_grading_file(build.path(), "lesson07")) << "{\"lesson\": \"lesson07\"";
    EXPECT_FALSE(load_measured_grading(build.path(), "lesson07")) << "a damaged file";
}

// Each test's limit in a batch: 5 s plus 20 times the solution's time for
// it, rounded up to whole seconds, 10 s more for a process's first GPU test,
// and never more than --timeout; only on
// the GPU model measured, and kept in the file with the rest.
TEST(MeasuredGrading, GivesEachTestALimitFromTheSolutionsTimeOnTheSameGpu) {
    const course::temp_dir build("measured-grading");
    const std::string h200 = "NVIDIA H200 (sm_90)";
    measured_grading measured{"lesson01", h200, "2026-11-30T12:00:00Z", 60, 30, 3.5, "mutant hang"};
    measured.solution_test_ms = {{"VecAdd.SingleElement", 1.0},   // 20 ms: 6 s
                                 {"VecAdd.Large", 310.0},         // 6.2 s: 12 s
                                 {"VecAdd.Bandwidth", 2800.0},    // 56 s: 61 s, over --timeout 60
                                 {"VecAdd.Slow", 2000.0}};        // 40 s: 45 s
    save_measured_grading(build.path(), measured);
    const auto read = load_measured_grading(build.path(), "lesson01");
    ASSERT_TRUE(read);
    EXPECT_EQ(read->solution_test_ms, measured.solution_test_ms);

    const test_time_limits limits = test_limits_from(*read, h200, std::chrono::seconds(60));
    EXPECT_EQ(limits.by_test.at("VecAdd.SingleElement"), std::chrono::seconds(6));
    EXPECT_EQ(limits.by_test.at("VecAdd.Large"), std::chrono::seconds(12));
    EXPECT_EQ(limits.by_test.at("VecAdd.Slow"), std::chrono::seconds(45));
    EXPECT_FALSE(limits.by_test.count("VecAdd.Bandwidth")) << "no limit above --timeout";
    // A process's first GPU test starts CUDA: 10 s more (the runner adds it, capped by --timeout).
    EXPECT_EQ(limits.first_gpu_test_extra, std::chrono::seconds(10));
    EXPECT_NE(limits.why.find("5 s plus 20 times the reference solution's time for it on this GPU"),
              std::string::npos) << limits.why;
    EXPECT_NE(limits.why.find("NVIDIA H200 (sm_90), 2026-11-30"), std::string::npos) << limits.why;
    EXPECT_NE(limits.why.find("10 s more for the first GPU test of a process, which starts CUDA"),
              std::string::npos) << limits.why;

    const test_time_limits at_15 = test_limits_from(*read, h200, std::chrono::seconds(15));
    EXPECT_EQ(at_15.by_test.size(), 2u) << "only those under --timeout 15";
    EXPECT_EQ(at_15.by_test.at("VecAdd.Large"), std::chrono::seconds(12));
    const test_time_limits at_5 = test_limits_from(*read, h200, std::chrono::seconds(5));
    EXPECT_TRUE(at_5.by_test.empty()) << "none under --timeout 5";
    EXPECT_FALSE(at_5.why.empty()) << "measured here all the same";

    const test_time_limits elsewhere = test_limits_from(*read, "NVIDIA A100-SXM4-80GB (sm_80)", std::chrono::seconds(60));
    EXPECT_TRUE(elsewhere.by_test.empty()) << "another GPU: its times say nothing here";
    EXPECT_TRUE(elsewhere.why.empty());

    // A file saved before the tests' times were kept still gives the Slurm engine its figure.
    std::ofstream(measured_grading_file(build.path(), "lesson01"))
        << R"json({"lesson": "lesson01", "gpu": "NVIDIA H200 (sm_90)", "date": "2026-11-29T00:00:00Z",)json"
        << R"json( "timeout_s": 15, "runs": 30, "slowest_s": 3.5, "slowest": "mutant hang"})json";
    const auto older = load_measured_grading(build.path(), "lesson01");
    ASSERT_TRUE(older);
    EXPECT_TRUE(test_limits_from(*older, h200, std::chrono::seconds(60)).by_test.empty());
}

TEST(SubmissionRecipe, RebuildsOnlyTheStudentsFilesAndTheLink) {
    const manifest m = load_manifest(GRADER_BUILD_DIR);
    const lesson_info* lesson = m.find("lesson04");
    ASSERT_NE(lesson, nullptr);
    const submission_recipe recipe = derive_submission_recipe(m, *lesson);
    // memory_pool.cu and async_pool.cu, the library, the program.
    ASSERT_EQ(recipe.compile.size(), 2u);
    ASSERT_EQ(recipe.link.size(), 2u);
    const variant_info* exercise = lesson->variant("exercise");
    std::vector<std::string> commands = recipe.compile;
    commands.insert(commands.end(), recipe.link.begin(), recipe.link.end());
    for (const auto& command : commands) {
        EXPECT_NE(command.find("@SCRATCH@"), std::string::npos) << command;
        EXPECT_EQ(command.find((exercise->source_dir / "memory_pool.cu").string()), std::string::npos)
            << "a submission's build must not read the exercise folder: " << command;
        EXPECT_EQ(command.find(exercise->library.lexically_relative(m.build_dir).string()), std::string::npos)
            << "nor write the exercise's library: " << command;
    }
    EXPECT_NE(recipe.link.back().find("@SCRATCH@/build/tests"), std::string::npos);
    // What the link reuses is shown in the sandbox.
    const auto reads = [&](const std::string& name) {
        return std::any_of(recipe.reads.begin(), recipe.reads.end(),
                           [&](const fs::path& p) { return p.filename() == name; });
    };
    EXPECT_TRUE(reads("libcourse_common.a"));
    EXPECT_TRUE(reads("libcourse_testing_main.a"));
}

}  // namespace
}  // namespace grader
