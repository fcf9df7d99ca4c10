#pragma once
// The time of a graded speed test, from the GPU's own record of each call.
//
//   course::testing::timed_calls work;
//   work.name = "vecadd";
//   work.fresh_inputs = [&](std::uint64_t seed, cudaStream_t s) {
//       fill_fresh(a.view(), seed, s);
//       fill_fresh(b.view(), seed + 1, s);
//   };
//   work.call = [&](cudaStream_t s) { lesson01::vecadd(a.view(), b.view(), c.view(), 256, s); };
//   work.output = c.view();
//   work.arrays = {a.view(), b.view(), c.view()};
//   const std::optional<double> ms = time_calls(work);  // GPU time per call
//
// Every one of the `repetitions` calls must do its work, and show it:
// - Before each call its inputs are made again (fresh_inputs, outside the
//   timed part), so an answer kept from an earlier call is wrong.
// - After each call the output is read at positions drawn once the call has
//   returned, which its code cannot know; the judge checks them against the
//   reference solution's answer to the same inputs.
// - The grader's recorder (gpu_record.hpp) writes down what each call asked
//   of the GPU: its launches (kernel, shape, argument bytes), copies and
//   memsets, and the GPU's own times.
// - Where the test names its arrays (`arrays`), the time is the judge's:
//   it replays each call in its own process from the student's compiled
//   device code (call_replay.hpp), on the same fresh inputs, with its own
//   copies of the arrays and of any scratch memory, held to the reference's
//   answer in every element, and times the replay on the GPU. No code of the
//   student's runs on the host while it does. The median replay is the
//   figure.
// - lesson05's pipeline (time_pipeline) is replayed the same way, but on
//   streams of the judge's own, one for each of the student's, in the
//   recorded order between them, beside the same work one step after
//   another, timed by the judge in the same run.
// - Otherwise (a call that cannot be replayed) it is the record's: from the first piece of work the call
//   caused to the last one's end, on every stream and in every context,
//   including work still running when the call returned (the harness waits
//   for the whole device before it marks the call's end).
//
// Where it runs:
// - In the student's program (recording): makes the calls, records the
//   positions and values it read, and has the recorder record the GPU's
//   work. Returns nullopt: the judge decides.
// - In the judge: makes the same calls with the reference solution, checks
//   the student's values, and reads the record. Returns the GPU time per
//   call, or nullopt when the test has already failed with what was seen
//   ("in 19 of 20 timed calls no kernel ran").
// - Anywhere else (ctest, by hand): times each call with events on its
//   stream, checks nothing, and returns the median.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "course/device_span.hpp"
#include "course/testing/gpu_record.hpp"
#include "course/testing/result_check.hpp"

namespace course::testing {

struct timed_calls {
    std::string name;  // for messages: "vecadd", "sum"
    int repetitions = 20;
    // Makes the inputs of one call from `seed` (fill_fresh), on `stream`.
    std::function<void(std::uint64_t seed, cudaStream_t stream)> fresh_inputs;
    // The code under test, given the stream to work on.
    std::function<void(cudaStream_t stream)> call;
    // What the call writes (the same array as an input, for in-place work):
    // device memory, or pinned host memory (the GPU reads it in place).
    device_span<const float> output;
    // How far a value may stray from the reference's, in units of the
    // reference's answer on the inputs' magnitudes (result_check.hpp: the
    // size that rounding can err by), or of the value's own size, at least
    // 1, where the test names no arrays.
    double tolerance = elementwise_tolerance;
    // Every array the call is handed, the output among them, in the same
    // order in every program: the judge replays the call on its own copies
    // of them. Empty: the call is not replayed, and its time is the record's,
    // taken in the student's program: only a GRADED_PERF_TEST_SYSTEM test has
    // the GPU alone there (a GRADED_PERF_TEST without them fails, saying so).
    std::vector<device_span<const float>> arrays;
    // Kernels the course hands the call, which the student's library does
    // not hold (lesson03's SAXPY, compiled from the lesson's source while
    // the program runs): by name, the program's own copy. In the judge, a
    // recorded launch of one is replayed with the judge's copy, the launch
    // (grid, block, arguments) being the student's.
    std::vector<std::pair<std::string, CUfunction>> given_kernels;
};

std::optional<double> time_calls(const timed_calls& work);

// A yardstick the judge measures beside the student's figure (lesson07's
// textbook kernels, cuBLAS): `work.call` is the judge's own code, timed the
// way a replay is, so that the two figures compare. Before each of
// `repetitions` calls (after one untimed one): new inputs, no persisting L2
// lines; the call queued behind a hold and timed with events on its stream.
// Returns the median GPU time per call in milliseconds. Runs anywhere; only
// the judge's figure counts.
double time_yardstick(const timed_calls& work);

// The same calls, for a test that grades more than a time (lesson05's
// overlap, gpu_overlap.hpp): returns the record itself. In the judge, once
// the outputs and the record passed every check above; nullopt in the
// student's program, and in the judge after a failure. Anywhere else, the
// calls are recorded in this process with the recorder the build made, and
// nullopt where it made none.
std::optional<gpu_record> recorded_calls(const timed_calls& work);

// lesson05's pipeline: how much faster than the same work one step after
// another it runs, timed by the judge.
//
// In the judge, once the calls' outputs and their record passed every check
// of time_calls: each call replayed from the student's device code on
// streams of the judge's own, one for each stream the call used, with its
// events and its host's waits between them (call_replay::queue_on_streams),
// on new inputs, checked in every element, and timed from before its first
// op to every stream's end; then `serial` (the judge's own, the same work on
// one stream, queued on the stream it is given) timed with events on that
// stream, after one untimed call. `work.arrays` must name the call's arrays
// (pinned host memory is fine).
//
// Where the judge cannot replay a call (it used a stream or a copy the
// replay does not redo), `not_replayed` says why, `replay_ms` is empty, and
// the test grades the record's span of the median call against the judge's
// `serial` (TRUST.md says so). nullopt: in the
// student's program, after a failure, and anywhere else where the build has
// no recorder; anywhere else the record is this process's own.
struct pipeline_times {
    std::optional<gpu_record> record;
    std::optional<double> replay_ms;            // the median replay
    std::optional<double> one_after_another_ms;  // `serial`, the median
    std::string not_replayed;
};
std::optional<pipeline_times> time_pipeline(const timed_calls& work, const timed_calls& serial);

}  // namespace course::testing
