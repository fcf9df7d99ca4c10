#pragma once
// The judge's replay of a test's timed calls (timed_calls.hpp, TRUST.md item
// 9): each call the student's program recorded, launched again in the
// judge's process from the student's device code (call_replay.hpp) on new
// inputs, checked in every element, timed. Private to timed_calls.cpp.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "course/pinned_array.hpp"
#include "course/testing/gpu_record.hpp"
#include "course/testing/stream_order.hpp"
#include "course/testing/timed_calls.hpp"
#include "course/timing.hpp"

namespace course::testing::detail {

// Before each timed repetition, the replay's and a yardstick's alike: no
// persisting L2 lines are left from the last one (a GPU before Ampere has
// none to clear).
void clear_persisting_l2();

// Times what `queue` puts on `stream` with `timer`'s events around it, all
// of it queued behind a hold and then let go, so that it runs back to back
// on the GPU without the host's launch gaps in its time. An exception from
// `queue` lets the hold go.
template <typename Queue>
void time_behind_hold(cudaStream_t stream, pinned_array<unsigned>& hold_flag, event_timer& timer, Queue&& queue) {
    stream_hold hold(stream, hold_flag, 0);
    timer.start(stream);
    queue();
    timer.stop(stream);
}

// The words of a failure whose output was found to be the answer to the
// inputs with 10-bit mantissas, rounded `how` ("rounded to nearest", "cut").
std::string reduced_precision_words(const char* how);

// Where the test's arrays lie in this process: address and bytes of each,
// as the student's program records them and the judge compares.
std::vector<std::uint64_t> placement(const timed_calls& work);

// The median replay's GPU time in milliseconds; nullopt after the test has
// failed saying why (a replay that computes the wrong answer, a call that
// cannot be replayed). `student_arrays` is placement() in the student's program.
std::optional<double> replay_calls(const timed_calls& work, const gpu_record& record,
                                   const std::vector<std::uint64_t>& student_arrays, cudaStream_t stream);

}  // namespace course::testing::detail
