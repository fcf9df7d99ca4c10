#include "replayed_calls.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/pinned_array.hpp"
#include "course/testing/call_replay.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/replay_addresses.hpp"
#include "course/testing/stream_order.hpp"
#include "course/testing/student_modules.hpp"
#include "course/timing.hpp"

namespace course::testing::detail {

namespace {

// The words placement() gives, as arrays.
std::vector<placed_array> as_placed(const std::vector<std::uint64_t>& words) {
    std::vector<placed_array> arrays;
    for (std::size_t i = 0; i + 1 < words.size(); i += 2) arrays.push_back({words[i], words[i + 1]});
    return arrays;
}

// What the judge saw of its replays' outputs.
struct replay_findings {
    int wrong = 0;
    std::string first;  // the first wrong value, in words
    std::uint64_t bytes_not_kept = 0;  // the most memory of a wrong replay that started with a pattern
    std::string precision;             // what the first wrong replay matched instead, if anything
};

// Whether the first wrong replay's output (`replayed`) is the answer to its
// inputs rounded to a 10-bit mantissa, as TF32 and FP16 keep them (to
// nearest, or cut, as a tensor core fed float32 does), where it is not the
// answer to the inputs themselves: the evidence that the work ran at that
// precision. Computed by the reference, only once a replay was wrong.
std::string reduced_precision_finding(const timed_calls& work, std::uint64_t inputs, device_span<const float> replayed,
                                      device_span<const float> scale, far_value_counter& counter,
                                      cudaStream_t stream) {
    for (const auto& [rounding, how] : ten_bit_roundings) {
        reference_at_ten_bits(work, inputs, rounding, stream);
        if (counter.count(replayed, work.output, scale, work.tolerance, stream).count > 0) continue;
        return reduced_precision_words(how);
    }
    return {};
}

}  // namespace

void call_after(const timed_calls& work, cudaStream_t stream) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    work.call(stream);
}

void reference_on_magnitudes(const timed_calls& work, std::uint64_t seed, cudaStream_t stream) {
    work.fresh_inputs(seed, stream);
    take_magnitudes(work.arrays, stream);
    call_after(work, stream);
}

void reference_at_ten_bits(const timed_calls& work, std::uint64_t seed, mantissa_rounding rounding,
                           cudaStream_t stream) {
    work.fresh_inputs(seed, stream);
    keep_ten_mantissa_bits(work.arrays, rounding, stream);
    call_after(work, stream);
}

std::string reduced_precision_words(const char* how) {
    return fmt::format(
        "\nYour output is, within float32's rounding, the answer to these inputs with their mantissas {} to 10 "
        "bits: the precision of TF32 or FP16, as tensor cores read their inputs. This test asks for float32 "
        "arithmetic (float inputs, float accumulators, the CUDA cores); the inputs have bits below those 10 that "
        "change the answer.",
        how);
}

void clear_persisting_l2() {
    if (cudaCtxResetPersistingL2Cache() != cudaSuccess) (void)cudaGetLastError();  // none before Ampere
}

// Where the test's arrays lie in this process: address and bytes of each.
std::vector<std::uint64_t> placement(const timed_calls& work) {
    std::vector<std::uint64_t> words;
    for (const auto& a : work.arrays) {
        words.push_back(reinterpret_cast<std::uint64_t>(a.data()));
        words.push_back(a.size() * sizeof(float));
    }
    return words;
}

// The judge's time: each call replayed from the student's device code on
// the judge's own arrays (call_replay.hpp), checked against the reference in
// every element, timed on the GPU. Nullopt after saying why.
std::optional<double> replay_calls(const timed_calls& work, const gpu_record& record,
                                   const std::vector<std::uint64_t>& student_arrays, cudaStream_t stream,
                                   replay_order order, std::string* not_replayed) {
    auto refuse = [&](const std::string& why) -> std::optional<double> {
        if (not_replayed) {
            *not_replayed = why;
            return std::nullopt;
        }
        // The calls were not timed at all: a profile of how fast the
        // kernels ran would explain nothing about why.
        next_failure_explained_beyond_the_tools();
        ADD_FAILURE() << "the speed of " << work.name << " could not be graded: " << why
                      << ".\nThe judge times your kernels by launching them again in its own process, as your call "
                         "launched them, on new inputs (grader/GRADING.md, \"What a speed test checks\").";
        return std::nullopt;
    };
    if (!record.calls_followed)
        return refuse(fmt::format("the recorder could not follow what the calls asked of the GPU (CUPTI error {})",
                                  record.cupti_error));
    const replay_addresses addresses(as_placed(student_arrays), as_placed(placement(work)));
    std::string why;
    if (!addresses.match(why)) return refuse("the record of the test's arrays is not the test's: " + why);
    auto modules = student_modules::from_grader(why);
    // A call that launches only kernels the course gave it (lesson03) needs
    // none of the student's device code.
    if (!modules && work.given_kernels.empty()) return refuse(why);
    if (!modules) modules = std::make_unique<student_modules>(std::vector<std::string>{});
    for (const auto& [name, function] : work.given_kernels) modules->give(name, function);
    replay_scratch scratch(gpu_memory_budget() / 4);
    call_replay replay(*modules, addresses, scratch);
    replay_streams streams;
    float* output = const_cast<float*>(work.output.data());  // the test's own array
    const std::size_t output_bytes = work.output.size() * sizeof(float);
    device_array<float> replayed(work.output.size());
    // What rounding can err by, element by element: the reference's answer
    // on the magnitudes of the same inputs (result_check.hpp).
    device_array<float> scale(work.output.size());
    pinned_array<unsigned> hold_flag(1);
    far_value_counter counter;
    replay_findings findings;
    std::vector<double> ms;
    // New inputs, which the student's program never saw: a value its host
    // code worked out and handed to the GPU (a copy's recorded bytes) is
    // wrong for them.
    std::random_device entropy;
    const std::uint64_t replay_seeds = (std::uint64_t{entropy()} << 32) | entropy();
    for (int k = 0; k < work.repetitions; ++k) {
        const std::uint64_t inputs = replay_seeds + 1000 * static_cast<std::uint64_t>(k);
        // The output holds NaN, every module its __device__ variables'
        // first values, the L2 cache no persisting lines, the scratch a
        // pattern, then what the student's call found in it where the
        // recorder kept that: nothing is left from an earlier replay. Then
        // the new inputs.
        // (A kernel, not a memset: lesson05's output is pinned host memory.)
        fill_with_nan(device_span<float>(output, work.output.size()), stream);
        work.fresh_inputs(inputs, stream);
        clear_persisting_l2();
        if (!modules->reload(why)) return refuse(why);
        try {
            replay.prepare(record.repetitions[static_cast<std::size_t>(k)]);
        } catch (const replay_refused& e) {
            return refuse(fmt::format("call {} could not be replayed: {}", k + 1, e.what()));
        }
        scratch.fill_with_pattern(stream);
        replay.start_as_recorded(stream);
        if (order == replay_order::streams_as_recorded) replay.make_streams(streams);
        CUDA_CHECK(cudaDeviceSynchronize());
        event_timer timer;
        try {
            if (order == replay_order::one_stream) {
                // Everything queued behind a hold, then let go: the replay runs
                // back to back, without the judge's own launch gaps in its time.
                time_behind_hold(stream, hold_flag, timer, [&] { replay.queue(stream); });
            } else {
                // No hold: the call's own host waits (a synchronize between
                // chunks) are replayed, and a held stream would never finish.
                timer.start(stream);
                streams.start_after(stream);
                replay.queue_on_streams(streams);
                streams.join_into(stream);
                timer.stop(stream);
            }
        } catch (const replay_refused& e) {
            return refuse(fmt::format("call {} could not be replayed: {}", k + 1, e.what()));
        }
        if (const cudaError_t ran = cudaStreamSynchronize(stream); ran != cudaSuccess)
            return refuse(fmt::format("replaying call {} failed on the GPU ({}: {})", k + 1, cudaGetErrorName(ran),
                                      cudaGetErrorString(ran)));
        ms.push_back(timer.elapsed().count());
        // The reference on the same inputs, compared in every element, each
        // against the reference's answer on their magnitudes.
        CUDA_CHECK(cudaMemcpyAsync(replayed.data(), output, output_bytes, cudaMemcpyDefault, stream));
        reference_on_magnitudes(work, inputs, stream);
        CUDA_CHECK(cudaMemcpyAsync(scale.data(), output, output_bytes, cudaMemcpyDefault, stream));
        work.fresh_inputs(inputs, stream);
        call_after(work, stream);
        const far_values far = counter.count(replayed.view(), work.output, scale.view(), work.tolerance, stream);
        if (far.count == 0) continue;
        findings.bytes_not_kept = std::max(findings.bytes_not_kept, replay.bytes_not_kept());
        if (findings.wrong++ == 0) {
            const auto got = read_at(replayed.view(), {far.first});
            const auto expected = read_at(work.output, {far.first});
            findings.first = fmt::format("in replay {}, {} of {} elements were wrong; element {}: the reference gives "
                                         "{}, the replay gave {}",
                                         k + 1, far.count, work.output.size(), far.first, expected[0], got[0]);
            // Last: it computes into the output again.
            findings.precision =
                reduced_precision_finding(work, inputs, replayed.view(), scale.view(), counter, stream);
        }
    }
    if (findings.wrong > 0) {
        next_failure_explained_beyond_the_tools();  // what the calls computed, not how fast
        const std::string not_kept =
            findings.bytes_not_kept == 0
                ? std::string()
                : fmt::format("\nYour calls also used {} KiB of device memory besides the test's arrays in "
                              "allocations larger than the {} KiB the recorder copies: the replay started those with "
                              "a pattern, not with what your call found there. A kernel that relies on what an "
                              "earlier call left in a large allocation fails here for that reason.",
                              (findings.bytes_not_kept + 1023) / 1024, kept_memory_bytes / 1024);
        ADD_FAILURE() << fmt::format(
            "replaying what your calls launched did not compute {}: in {} of {} replays the output was wrong.\n{}.\n"
            "The judge launches your kernels again in its own process, exactly as your call launched them, on new "
            "inputs, and times that; device memory your call found (up to {} KiB an allocation) starts as it was. "
            "A call whose answer depends on anything else (a result finished on the host, work left for later, "
            "an answer worked out for the inputs an earlier call saw) does not replay to the right answer, so its "
            "speed cannot be graded.{}{}",
            work.name, findings.wrong, work.repetitions, findings.first, kept_memory_bytes / 1024,
            findings.precision, not_kept);
        return std::nullopt;
    }
    return summarize(ms).median;
}

}  // namespace course::testing::detail
