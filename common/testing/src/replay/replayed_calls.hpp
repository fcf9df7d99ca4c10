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
#include "course/testing/fresh_inputs.hpp"
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

// work.call once what is queued on `stream` is done: a call may work on
// streams of its own (lesson05's pipeline), which do not wait for `stream`,
// where the inputs were just made.
void call_after(const timed_calls& work, cudaStream_t stream);

// The reference's answer, left in work.output, to the inputs of `seed`
// made into their magnitudes: the size rounding can err by
// (result_check.hpp).
void reference_on_magnitudes(const timed_calls& work, std::uint64_t seed, cudaStream_t stream);

// The two ways a 10-bit mantissa is made of a float32 (to nearest, as
// cvt.rna.tf32.f32 and FP16 conversion do; cut, as a tensor core fed
// float32 reads it), with their words for a failure message.
struct ten_bit_rounding {
    mantissa_rounding rounding;
    const char* how;
};
inline constexpr ten_bit_rounding ten_bit_roundings[] = {{mantissa_rounding::nearest, "rounded to nearest"},
                                                         {mantissa_rounding::toward_zero, "cut"}};

// The reference's answer, left in work.output, to the inputs of `seed` with
// their mantissas made 10 bits `rounding`'s way.
void reference_at_ten_bits(const timed_calls& work, std::uint64_t seed, mantissa_rounding rounding,
                           cudaStream_t stream);

// The words of a failure whose output was found to be the answer to the
// inputs with 10-bit mantissas, rounded `how` ("rounded to nearest", "cut").
std::string reduced_precision_words(const char* how);

// Where the test's arrays lie in this process: address and bytes of each,
// as the student's program records them and the judge compares.
std::vector<std::uint64_t> placement(const timed_calls& work);

// How a replay orders the calls' work: all of it on the judge's stream, in
// the recorded order, queued behind a hold (lessons 01, 02, 03, 06, 07); or
// on streams of the judge's own standing for the student's, with the
// recorded events and host waits between them, timed from an event before
// the first op to every stream's end (lesson05's pipeline).
enum class replay_order { one_stream, streams_as_recorded };

// The median replay's GPU time in milliseconds; nullopt after the test has
// failed saying why (a replay that computes the wrong answer, a call that
// cannot be replayed). `student_arrays` is placement() in the student's program.
// Where `not_replayed` is given, a call that cannot be replayed does not fail
// the test: why is written there, for the caller to fall back on the record.
std::optional<double> replay_calls(const timed_calls& work, const gpu_record& record,
                                   const std::vector<std::uint64_t>& student_arrays, cudaStream_t stream,
                                   replay_order order = replay_order::one_stream,
                                   std::string* not_replayed = nullptr);

}  // namespace course::testing::detail
