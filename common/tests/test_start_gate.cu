// The benchmarks' start gate (course/start_gate.hpp) on a real GPU: it holds
// the stream until the host opens it, so the time between two events queued
// behind it leaves out the host's own time; and it gives up, rather than
// hang, when the host waits for the GPU before opening it.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/start_gate.hpp"
#include "course/timing.hpp"

namespace {

using namespace std::chrono_literals;

__global__ void do_nothing() {}

// The GPU time between two events with 20 ms of the host's time (a slow
// launch, say) between queueing the first and the kernel.
double milliseconds_around_a_slow_launch(course::bench::start_gate* gate) {
    course::event_timer timer;
    if (gate) gate->close(nullptr);
    timer.start();
    std::this_thread::sleep_for(20ms);
    do_nothing<<<1, 1>>>();
    CUDA_CHECK(cudaGetLastError());
    timer.stop();
    if (gate) gate->open();
    return timer.elapsed().count();
}

}  // namespace

TEST(StartGate, HoldsTheStreamUntilOpened) {
    if (!course::has_device()) GTEST_SKIP() << "no GPU";
    course::bench::start_gate gate;
    course::event behind;
    gate.close(nullptr);
    behind.record();
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(behind.ready()) << "the event behind the gate ran before the gate was opened";
    gate.open();
    behind.synchronize();
    EXPECT_FALSE(gate.gave_up());
}

TEST(StartGate, LeavesTheHostsTimeOutOfTheEvents) {
    if (!course::has_device()) GTEST_SKIP() << "no GPU";
    milliseconds_around_a_slow_launch(nullptr);  // first launch: loads the kernel
    EXPECT_GE(milliseconds_around_a_slow_launch(nullptr), 15.0) << "without the gate the host's 20 ms are timed";
    course::bench::start_gate gate;
    EXPECT_LT(milliseconds_around_a_slow_launch(&gate), 5.0) << "behind the gate they are not";
    EXPECT_FALSE(gate.gave_up());
}

TEST(StartGate, GivesUpWhenTheHostWaitsForTheGpu) {
    if (!course::has_device()) GTEST_SKIP() << "no GPU";
    course::bench::start_gate gate(50ms);
    gate.close(nullptr);
    const auto before = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaDeviceSynchronize());  // as cudaFree would: waits for the gate, which waits for us
    const auto waited = std::chrono::steady_clock::now() - before;
    EXPECT_TRUE(gate.gave_up());
    EXPECT_GE(waited, 40ms);
    EXPECT_LT(waited, 5s) << "the gate must give up after its patience";
    gate.open();
}
