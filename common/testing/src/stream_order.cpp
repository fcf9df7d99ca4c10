#include "course/testing/stream_order.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/random.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/expect.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/graded.hpp"

namespace course::testing {

namespace {

std::vector<std::vector<float>> values_of(const std::vector<stream_input>& inputs, bool new_values) {
    std::vector<std::vector<float>> values;
    for (const auto& in : inputs) values.push_back(new_values ? in.new_values : in.old_values);
    return values;
}

// Synchronous copies: when this returns, the inputs hold their old values
// and nothing else is running.
void write_old_values(const std::vector<stream_input>& inputs) {
    for (const auto& in : inputs)
        CUDA_CHECK(cudaMemcpy(in.device.data(), in.old_values.data(), in.old_values.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
}

// Step 1: the call on an idle stream, every stream finished before the read.
std::vector<float> call_on_idle_stream(const stream_order_check& check, cudaStream_t stream) {
    write_old_values(check.inputs);
    check.call(stream);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> out(check.output.size());
    CUDA_CHECK(cudaMemcpy(out.data(), check.output.data(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return out;
}

// Step 2: the call queued behind a hold on `stream`, with its new inputs
// written on `stream` just before it; the call itself is given `call_on`
// (the stream, or in the replay of the mistake, the legacy default stream).
// Returns what the output held when it was read back on `stream`.
std::vector<float> call_behind_hold(const stream_order_check& check, const std::vector<device_array<float>>& staged,
                                    cudaStream_t stream, cudaStream_t call_on) {
    const std::size_t n = check.output.size();
    CUDA_CHECK(cudaMemset(check.output.data(), 0xFF, n * sizeof(float)));  // NaN: never written
    write_old_values(check.inputs);  // after the poison: the output may be an input
    pinned_array<float> back(n);     // pinned: the copy back is queued, not done at once
    {
        stream_hold hold(stream);
        for (std::size_t k = 0; k < staged.size(); ++k)
            CUDA_CHECK(cudaMemcpyAsync(check.inputs[k].device.data(), staged[k].data(), staged[k].size() * sizeof(float),
                                       cudaMemcpyDeviceToDevice, stream));
        check.call(call_on);
        if (n > 0)
            CUDA_CHECK(cudaMemcpyAsync(back.data(), check.output.data(), n * sizeof(float), cudaMemcpyDeviceToHost,
                                       stream));
        hold.release();
        CUDA_CHECK(cudaStreamSynchronize(stream));  // only this stream: what was not on it is not waited for
    }
    // Work queued elsewhere ends before anything else writes the inputs.
    CUDA_CHECK(cudaDeviceSynchronize());
    return {back.begin(), back.end()};
}

std::vector<double> as_doubles(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// "element 7 holds 0.25, the inputs written on that stream give 1.5 (0.25 is
// what the inputs held before give)"
std::string describe_wrong_element(const mismatch& m, const std::vector<double>& expected_old) {
    std::string what = std::isnan(m.actual)
                           ? fmt::format("element {} holds NaN (not written when it was read back)", with_commas(m.index))
                           : fmt::format("element {} holds {:.6g}", with_commas(m.index), m.actual);
    what += fmt::format(", the inputs written on that stream give {:.6g}", m.expected);
    if (m.index < expected_old.size() && !std::isnan(m.actual) && expected_old[m.index] != m.expected &&
        within(m.actual, expected_old[m.index], tolerance{1e-6, 1e-6}))
        what += " (which is what the inputs held before give)";
    return what;
}

}  // namespace

stream_input random_stream_input(device_span<float> device, const std::string& name, float lo, float hi) {
    return {device, random_floats(device.size(), derive_seed(seed(), (name + " before").c_str()), lo, hi),
            random_floats(device.size(), derive_seed(seed(), (name + " on the stream").c_str()), lo, hi)};
}

void expect_honours_stream(const stream_order_check& check) {
    require_across_streams("expect_honours_stream");
    const course::stream stream;  // cudaStreamNonBlocking: the legacy default stream does not wait for it
    std::vector<device_array<float>> staged;  // the new values, on the device before the stream is held
    for (const auto& in : check.inputs) staged.push_back(device_array<float>::from_host(in.new_values));

    const std::vector<float> idle = observe_same_size("output of a call on an idle stream",
                                                      call_on_idle_stream(check, stream));
    const std::vector<float> held = observe_same_size("output read back on the held stream",
                                                      call_behind_hold(check, staged, stream, stream));

    const std::vector<double> expected_old = check.expected(values_of(check.inputs, false));
    const comparison on_idle = compare(idle, expected_old, check.tol);
    if (!on_idle.ok()) {
        ADD_FAILURE() << check.call_name << " gave a wrong answer even on an idle stream, with nothing queued "
                      << "before it: " << describe_mismatch(on_idle.examples.front()) << "\n"
                      << on_idle.summary() << "\nThe other tests of " << check.call_name
                      << " say more about what is wrong; this one needs a right answer before it can check the "
                         "stream.";
        return;
    }
    const std::vector<double> expected = check.expected(values_of(check.inputs, true));
    const comparison on_held = compare(held, expected, check.tol);
    if (on_held.ok()) return;

    // Wrong. The mistake is named only if making it reproduces what was seen:
    // the same steps with the call on the legacy default stream. In the judge
    // that is the reference solution's call, so no student code decides the
    // words; in the student's program its own words can only cost it points.
    const std::vector<float> replayed = call_behind_hold(check, staged, stream, cudaStreamLegacy);
    const bool reproduced =
        compare(held, as_doubles(replayed), check.tol).ok() && !compare(replayed, expected, check.tol).ok();
    const std::string what = describe_wrong_element(on_held.examples.front(), expected_old);
    if (reproduced) {
        // Seen whole: the answer on an idle stream was right, and the mistake
        // replayed gives this very output. No compute-sanitizer tool looks
        // at which stream work ran on.
        next_failure_explained_beyond_the_tools();
        ADD_FAILURE() << check.what_ran << " did not run on the stream it was given: " << what << ".\n"
                      << on_held.summary() << "\nThe test held its stream (created with cudaStreamNonBlocking, as "
                      << "PyTorch creates its streams) with a kernel, wrote new inputs on it, called "
                      << check.call_name << " with it, and read the output back on it. Work queued on that stream "
                      << "waits its turn and reads the new inputs. Called on the legacy default stream instead, "
                      << check.call_name << " gives exactly this output: the default stream does not wait for a "
                      << "non-blocking stream, and neither does a stream of your own (" << check.right_way << ").";
        return;
    }
    ADD_FAILURE() << "the output read back on the stream was wrong: " << what << ".\n"
                  << on_held.summary() << "\nThe test held its stream (created with cudaStreamNonBlocking) with a "
                  << "kernel, wrote new inputs on it, called " << check.call_name
                  << " with it, and read the output back on the same stream: all the work of the call must be "
                     "queued on that stream, after what was queued before it.";
}

}  // namespace course::testing
