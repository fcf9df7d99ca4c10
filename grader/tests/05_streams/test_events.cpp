// Graded tests for lesson05, part 1: timing with events (time_with_events)
// and dependencies between streams (add_dependency). The GPU work they time
// and order comes from test_kernels.cu: a kernel that runs for a known time,
// and a slow producer with a consumer.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/cuda_error.hpp"
#include "course/event.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "streams.cuh"
#include "test_kernels.hpp"

namespace {

using namespace std::chrono_literals;
using lesson05_tests::launch_spin;
using course::testing::observe;
using course::testing::observe_same_size;

// True once everything queued on `stream` has finished. Never blocks.
bool finished(cudaStream_t stream) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaErrorNotReady) {
        cudaGetLastError();  // "not ready" is an answer, not an error
        return false;
    }
    CUDA_CHECK(status);
    return true;
}

double host_ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Calls time_with_events, turning its most common failure into advice. What
// it measured (or the error it read too early) is evidence: observe(). No
// value when the time was read too early (reported here); any value it
// returned, a negative one too (start and stop swapped), is for the checks.
std::optional<double> timed_ms(cudaStream_t stream, const std::function<void(cudaStream_t)>& work) {
    double ms = 0;
    std::string too_early;
    try {
        ms = lesson05::time_with_events(stream, work).count();
    } catch (const course::cuda_error& e) {
        if (e.code() != cudaErrorNotReady) throw;
        too_early = e.what();
    }
    ms = observe("event ms", ms);
    too_early = observe("read too early", too_early);
    if (!too_early.empty())
        ADD_FAILURE() << too_early
                      << "\nthe time was read before the stop event had completed: the work is still "
                         "running when work() returns, so wait for the stop event "
                         "(stop.synchronize()) before asking for the elapsed time";
    if (!too_early.empty()) return std::nullopt;
    return ms;
}

// The first launch of a kernel loads it; keep that out of the timed runs.
void warm_up(const course::stream& stream) {
    launch_spin(stream, 10us);
    stream.synchronize();
}

}  // namespace

GRADED_TEST_ALONE(Timing, AgreesWithHostClock, 2, "50 ms of GPU work: event time agrees with a host clock") {
    course::stream stream;
    warm_up(stream);
    constexpr auto work_time = 50ms;
    int calls = 0;
    cudaStream_t given = nullptr;

    const auto start = std::chrono::steady_clock::now();
    const std::optional<double> timed = timed_ms(stream, [&](cudaStream_t s) {
        ++calls;
        given = s;
        launch_spin(s, work_time);
    });
    const double host_ms = observe("host ms", host_ms_since(start));
    if (!timed) return;  // reported by timed_ms
    const double event_ms = *timed;

    ASSERT_EQ(observe("calls", calls), 1) << "time_with_events must call work exactly once";
    ASSERT_TRUE(observe("work got the stream", given == stream.get()))
        << "work was given another stream than the one passed to time_with_events: call "
           "work(stream), so that the work lands between the two events";
    const bool done = observe("finished on return", finished(stream));
    const double expected_ms = std::chrono::duration<double, std::milli>(work_time).count();

    if (event_ms < 0.98 * expected_ms) {
        ADD_FAILURE() << fmt::format(
            "measured {:.3f} ms for work that takes {:.0f} ms on the GPU: the stop event completed "
            "before the work did{}.\nRecord both events on the stream the work runs on (the "
            "`stream` argument), not on the default stream, and record stop after calling work.",
            event_ms, expected_ms,
            done ? "" : " (and time_with_events returned while the work was still running)");
    } else if (!done) {
        ADD_FAILURE() << "time_with_events returned while the work was still running: wait for the "
                         "stop event before reading the time";
    } else if (event_ms > host_ms + 1.0) {
        ADD_FAILURE() << fmt::format(
            "measured {:.3f} ms, but only {:.3f} ms passed on the host clock during the whole call: "
            "the events do not bracket the work of this call",
            event_ms, host_ms);
    } else if (event_ms < 0.75 * host_ms - 2.0) {
        ADD_FAILURE() << fmt::format(
            "measured {:.3f} ms, but {:.3f} ms passed on the host clock while the GPU had nothing "
            "else to do: the events miss part of the work. Record start before calling work and "
            "stop right after it, both on `stream`.",
            event_ms, host_ms);
    }
    RecordProperty("event_ms", fmt::format("{:.3f}", event_ms));
    RecordProperty("host_ms", fmt::format("{:.3f}", host_ms));
}

GRADED_TEST_ALONE(Timing, CountsOnlyItsOwnWork, 2,
            "work queued earlier on the stream is not counted (40 ms queued, 10 ms timed)") {
    course::stream stream;
    warm_up(stream);
    // Already queued when time_with_events is called: the host will wait for
    // it, but the GPU time of the call's own work is 10 ms.
    launch_spin(stream, 40ms);
    const std::optional<double> timed = timed_ms(stream, [](cudaStream_t s) { launch_spin(s, 10ms); });
    if (!timed) return;  // reported by timed_ms
    const double event_ms = *timed;

    if (event_ms >= 45.0) {
        ADD_FAILURE() << fmt::format(
            "measured {:.3f} ms for 10 ms of work: it also counted the 40 ms of work that was "
            "already queued on the stream. That is what a host clock does: it starts when the call "
            "starts. An event recorded on the stream starts counting only when the GPU reaches it, "
            "after the earlier work.",
            event_ms);
    } else if (event_ms > 30.0) {
        ADD_FAILURE() << fmt::format(
            "measured {:.3f} ms for 10 ms of work: the start event fired before the work queued "
            "ahead of it had finished. Record start on `stream` itself.",
            event_ms);
    } else if (event_ms < 9.8) {
        ADD_FAILURE() << fmt::format(
            "measured {:.3f} ms for 10 ms of GPU work: the stop event completed before the work. "
            "Record both events on the stream the work runs on (the `stream` argument), not on the "
            "default stream.",
            event_ms);
    }
    stream.synchronize();
}

GRADED_STREAM_TEST(Dependency, ConsumerWaitsForProducer, 3,
            "a consumer on stream B sees what a slow producer on stream A wrote") {
    constexpr std::size_t n = std::size_t{1} << 16;
    constexpr int produced = 42;
    course::stream a, b;
    course::event marker(cudaEventDisableTiming);  // a dependency needs no timestamps
    course::device_array<int> buffer(n), seen(n);
    // Launch both kernels once first. CUDA loads a kernel's code on its first
    // launch (lazy loading), and that load waits for the GPU to go idle: it
    // would make stream B wait for stream A even without a dependency.
    lesson05_tests::launch_slow_fill(a, buffer.view(), 0, 0ms);
    lesson05_tests::launch_copy(b, buffer.view(), seen.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    buffer.fill_bytes(0);   // what the consumer sees if it runs too early
    seen.fill_bytes(0xFF);  // -1: what stays if the consumer never runs
    // fill_bytes queues on the legacy default stream, which a and b (created
    // non-blocking) do not wait for.
    CUDA_CHECK(cudaDeviceSynchronize());

    // The producer spins for 20 ms before it writes anything, so a consumer
    // that does not wait for it reads the old zeros.
    lesson05_tests::launch_slow_fill(a, buffer.view(), produced, 20ms);
    lesson05::add_dependency(a, b, marker);
    lesson05_tests::launch_copy(b, buffer.view(), seen.view());
    CUDA_CHECK(cudaDeviceSynchronize());

    const std::vector<int> result = observe_same_size("what the consumer saw", seen.to_host());
    std::size_t stale = 0, right = 0, untouched = 0;
    for (int v : result) {
        if (v == produced) ++right;
        else if (v == 0) ++stale;
        else if (v == -1) ++untouched;
    }
    if (right == n) return;
    if (untouched == n) {
        ADD_FAILURE() << "the consumer on stream B never ran: does add_dependency leave stream B "
                         "usable (no error, no wait on an event that is never recorded)?";
        return;
    }
    ADD_FAILURE() << fmt::format(
        "the consumer on stream B read the buffer before the producer on stream A wrote it: {} of "
        "{} elements still held the old value 0, {} held {}. Stream B did not wait.\n"
        "add_dependency must record the marker on the producer stream, then make the consumer "
        "wait for it: cudaStreamWaitEvent(consumer, marker, 0). Recording it on the consumer, or "
        "waiting before recording, waits for nothing.",
        stale, n, right, produced);
}

GRADED_STREAM_TEST(Dependency, HostIsNotBlocked, 1, "add_dependency returns at once, without waiting for the producer") {
    course::stream a, b;
    course::event marker(cudaEventDisableTiming);
    warm_up(a);
    launch_spin(a, 100ms);
    if (observe("finished at once", finished(a))) {
        a.synchronize();
        GTEST_SKIP() << "the 100 ms kernel had already finished when its launch returned: launches "
                        "block here (a profiler or compute-sanitizer?), so whether add_dependency "
                        "blocks cannot be seen";
    }
    const auto start = std::chrono::steady_clock::now();
    lesson05::add_dependency(a, b, marker);
    const double host_ms = observe("host ms", host_ms_since(start));
    const bool producer_done = observe("producer done", finished(a));
    a.synchronize();
    b.synchronize();
    if (producer_done) {
        ADD_FAILURE() << fmt::format(
            "add_dependency took {:.1f} ms and returned only after the producer's 100 ms kernel had "
            "finished: it blocked the host. cudaStreamSynchronize, cudaEventSynchronize and "
            "cudaDeviceSynchronize make the host wait; cudaStreamWaitEvent makes only the consumer "
            "stream wait, on the GPU, while the host goes on.",
            host_ms);
    }
}
