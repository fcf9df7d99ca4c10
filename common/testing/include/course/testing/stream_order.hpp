#pragma once
// Whether a call honours the stream it is given. Every lesson's functions
// take a cudaStream_t and promise to queue their work on it: after what the
// caller queued on it before, and before what the caller queues after. Most
// tests call with the default, the legacy default stream, and then a launch
// that leaves the stream out (`kernel<<<grid, block>>>`) runs where it should
// anyway. The mistake only shows on a stream created with
// cudaStreamNonBlocking, which the legacy default stream does not wait for
// (what CuPy and PyTorch users run), with work queued on it ahead of the call.
//
//   stream_order_check check;
//   check.call_name = "vecadd";
//   check.right_way = "launch with `<<<grid, block, 0, stream>>>`";
//   check.inputs = {random_stream_input(a.view(), "a"), random_stream_input(b.view(), "b")};
//   check.call = [&](cudaStream_t s) { lesson01::vecadd(a.view(), b.view(), c.view(), 256, s); };
//   check.output = c.view();
//   check.expected = [](const auto& v) { ...v[0][i] + v[1][i]... };  // the test's own host answer
//   check.tol = {1e-6, 0};
//   expect_honours_stream(check);
//
// What it does, on a stream of its own created with cudaStreamNonBlocking:
//   1. The inputs get their "old" values, and the call runs on the idle
//      stream: its answer must be right (and CUDA loads the call's kernels
//      now: loading a kernel at its first launch may wait for the kernels
//      already running, which would hide the mistake below).
//   2. The output is poisoned (NaN) and the inputs get their old values
//      again. Then, on the stream: a kernel of the harness's holds it
//      (stream_hold), the "new" values are copied into the inputs, the call
//      is made, and the output is copied back to the host; only that stream
//      is synchronised. Work that honours the stream reads the new values.
//      Work queued anywhere else (the default stream, a stream of the
//      call's own) runs at once, on the old values, or is read back before
//      it has run.
//   3. A wrong output fails the test. The cause is named ("your kernel did
//      not run on the stream it was given") only when replaying step 2 with
//      the call made on the legacy default stream gives the same output;
//      otherwise the message says what was wrong and names nothing.
//
// The values read back go through observe() (evidence.hpp): in the judge
// the checks run on the student's recorded outputs, with the reference
// solution's replay.
#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/device_span.hpp"
#include "course/pinned_array.hpp"

namespace course::testing {

// Keeps `stream` busy with one small kernel (its name says it is the
// harness's: course_harness_hold_stream) until release() has been called and
// a margin after it has passed, so everything queued on the stream behind it
// waits, while work queued elsewhere runs. The hold ends on its own after a
// time limit too, so that a call that waits for the held stream (a
// cudaDeviceSynchronize inside it, say) is only slowed down, never hung.
// Destroying the hold releases it and waits for the stream.
//
// The replay of a timed call (call_replay.hpp) holds its stream with no
// margin: everything it queues then starts back to back once released.
class stream_hold {
public:
    static constexpr unsigned long long default_margin_ns = 10'000'000;  // 10 ms
    explicit stream_hold(cudaStream_t stream, unsigned long long margin_ns = default_margin_ns);
    // The same with a flag in pinned memory of the caller's, made once for
    // many holds (allocating pinned memory takes a while, freeing it waits
    // for the whole GPU).
    stream_hold(cudaStream_t stream, pinned_array<unsigned>& flag, unsigned long long margin_ns);
    ~stream_hold();
    stream_hold(const stream_hold&) = delete;
    stream_hold& operator=(const stream_hold&) = delete;

    // Lets the kernel end, a margin from now (the margin lets work queued
    // on another stream while the stream was held finish first).
    void release() noexcept;

private:
    void start(unsigned long long margin_ns);
    cudaStream_t stream_;
    pinned_array<unsigned> own_flag_;  // where the caller gave none
    unsigned* released_;               // host memory the kernel polls
};

// One input of the call: where it lives on the device, the values it holds
// before the stream is held, and those written on the held stream.
struct stream_input {
    device_span<float> device;
    std::vector<float> old_values;
    std::vector<float> new_values;
};

// Old and new values, each uniform in [lo, hi), drawn from this test's seed
// and `name`.
stream_input random_stream_input(device_span<float> device, const std::string& name, float lo = -1.0f,
                                 float hi = 1.0f);

struct stream_order_check {
    std::string call_name;             // "vecadd": names the call in messages
    std::string what_ran = "your kernel";  // "<what_ran> did not run on the stream it was given"
    std::string right_way;             // "launch with `<<<grid, block, 0, stream>>>`"
    std::vector<stream_input> inputs;
    std::function<void(cudaStream_t)> call;
    // What the call writes, in device memory. It may be one of the inputs
    // (work done in place).
    device_span<float> output;
    // The right output for the values of the inputs (values[k] for inputs[k]),
    // computed on the host by the test.
    std::function<std::vector<double>(const std::vector<std::vector<float>>& values)> expected;
    tolerance tol;
};

void expect_honours_stream(const stream_order_check& check);

}  // namespace course::testing
