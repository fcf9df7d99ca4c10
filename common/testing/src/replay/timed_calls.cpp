#include "course/testing/timed_calls.hpp"

#include <dlfcn.h>
#include <unistd.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/pinned_array.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/gpu_record.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/result_check.hpp"
#include "course/testing/stream_order.hpp"
#include "course/timing.hpp"
#include "replayed_calls.hpp"

namespace course::testing {

using detail::placement;
using detail::replay_calls;

namespace {

// Positions read after each call: the first, the last, and this many more.
constexpr int drawn_positions = 30;

// The grader's recorder, loaded into this process the first time a timed
// test asks for it; nullptr where the grader named none.
struct recorder {
    gpu_record_start_fn start = nullptr;
    gpu_record_mark_fn mark = nullptr;
    gpu_record_stop_fn stop = nullptr;
    gpu_record_keep_memory_fn keep_memory = nullptr;
};

// The recorder at `path`, loaded the first time (a process records with one
// recorder: the grader's, or outside the grader the build's); nullptr where
// there is none.
const recorder* grader_recorder(const char* path) {
    static const recorder* loaded = [path]() -> const recorder* {
        if (!path || !*path) return nullptr;
        // Kept loaded for the rest of the process: CUPTI hands it buffers.
        void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!library) return nullptr;
        static recorder r;
        r.start = reinterpret_cast<gpu_record_start_fn>(dlsym(library, gpu_record_start_symbol));
        r.mark = reinterpret_cast<gpu_record_mark_fn>(dlsym(library, gpu_record_mark_symbol));
        r.stop = reinterpret_cast<gpu_record_stop_fn>(dlsym(library, gpu_record_stop_symbol));
        // Optional: a recorder from an older build records without it (memory
        // a call keeps then starts the replay with a pattern, and says so).
        r.keep_memory = reinterpret_cast<gpu_record_keep_memory_fn>(dlsym(library, gpu_record_keep_memory_symbol));
        return r.start && r.mark && r.stop ? &r : nullptr;
    }();
    return loaded;
}

// The recorder this build made, for runs outside the grader (ctest); the
// build names it (COURSE_BUILT_GPU_RECORDER) where CUPTI let it be built.
const char* built_recorder() {
#ifdef COURSE_BUILT_GPU_RECORDER
    return COURSE_BUILT_GPU_RECORDER;
#else
    return nullptr;
#endif
}

// The seed of repetition k's inputs; the warm-up call gets the last one.
std::uint64_t inputs_seed(int k) { return seed() * 1000 + static_cast<std::uint64_t>(k + 1); }

// Drawn from the operating system's entropy once the call has returned: the
// code under test cannot know them in advance.
std::vector<std::uint64_t> positions_nobody_knows(std::size_t size) {
    if (size == 0) return {};
    std::vector<std::uint64_t> positions{0, size - 1};
    std::random_device entropy;
    std::uniform_int_distribution<std::uint64_t> pick(0, size - 1);
    for (int i = 0; i < drawn_positions; ++i) positions.push_back(pick(entropy));
    return positions;
}

// What rounding can err by at `positions` (result_check.hpp): the
// reference's answer on the magnitudes of the inputs of `seed`, where the
// test names its arrays; else each expected value's own size, at least 1.
std::vector<float> scale_at(const timed_calls& work, std::uint64_t seed, const std::vector<std::uint64_t>& positions,
                            const std::vector<float>& expected, cudaStream_t stream) {
    if (work.arrays.empty()) {
        std::vector<float> scale;
        for (const float e : expected) scale.push_back(static_cast<float>(scale_without_magnitudes(e)));
        return scale;
    }
    detail::reference_on_magnitudes(work, seed, stream);
    CUDA_CHECK(cudaDeviceSynchronize());
    return read_at(work.output, positions);
}

// What the judge saw of the calls' outputs.
struct output_findings {
    int wrong = 0;  // calls with at least one wrong value
    int stale = 0;  // of those, calls whose every wrong value was what the output held before the call
    std::string first;  // the first wrong value, in words
    std::string precision;  // what the first wrong call's values are instead, where the judge could tell
};

// Whether the values `got` at `positions` are the answer to the inputs of
// `seed` with 10-bit mantissas (TF32, FP16: reduced_precision_words), where
// they were not the answer to the inputs themselves. Computed by the
// reference, only once a call was wrong.
std::string reduced_precision_at(const timed_calls& work, std::uint64_t seed,
                                 const std::vector<std::uint64_t>& positions, const std::vector<float>& scale,
                                 const std::vector<float>& got, cudaStream_t stream) {
    if (work.arrays.empty()) return {};
    for (const auto& [rounding, how] : detail::ten_bit_roundings) {
        detail::reference_at_ten_bits(work, seed, rounding, stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        const auto low = read_at(work.output, positions);
        bool all = true;
        for (std::size_t p = 0; p < positions.size() && all; ++p) all = within_tolerance(got[p], low[p], scale[p], work.tolerance);
        if (all) return detail::reduced_precision_words(how);
    }
    return {};
}

void check_call_output(const timed_calls& work, int call, const std::vector<std::uint64_t>& positions,
                       const std::vector<float>& before, const std::vector<float>& expected,
                       const std::vector<float>& scale, const std::vector<float>& got, output_findings& findings) {
    bool wrong = false, all_stale = true;
    for (std::size_t p = 0; p < positions.size(); ++p) {
        if (within_tolerance(got[p], expected[p], scale[p], work.tolerance)) continue;
        const bool stale = within_tolerance(got[p], before[p], scale[p], work.tolerance);
        all_stale = all_stale && stale;
        if (!wrong && findings.first.empty())
            findings.first = fmt::format(
                "in call {}, element {} of the output: this call's inputs give {}, the output held {}{}", call + 1,
                positions[p], expected[p], got[p], stale ? " (what it held before the call)" : "");
        wrong = true;
    }
    if (!wrong) return;
    ++findings.wrong;
    if (all_stale) ++findings.stale;
}

void report_outputs(const timed_calls& work, const output_findings& f) {
    if (f.wrong == 0) return;
    std::string what = fmt::format("in {} of {} timed calls of {} the output was wrong", f.wrong, work.repetitions,
                                   work.name);
    if (f.stale == f.wrong)
        what += ": it was what the output held before the call (the previous call's answer, or the input left as it was)";
    else if (f.stale > 0)
        what += fmt::format("; in {} of them it was what the output held before the call", f.stale);
    // What the calls computed, not how fast: a profile has nothing to add.
    next_failure_explained_beyond_the_tools();
    ADD_FAILURE() << what << ".\n"
                  << f.first << ".\nEvery call gets new inputs, and must compute its answer from them: an answer "
                                "kept from an earlier call, or work left for later, is not a speed."
                  << f.precision;
}

bool is_harness_kernel(const gpu_activity& a) { return a.name.find("course_harness_") != std::string::npos; }

// The record of the calls, checked: nullopt after saying why it cannot be used.
std::optional<gpu_record> checked_record(const timed_calls& work, const std::string& path, const std::string& nonce) {
    std::string why_not;
    const auto record = read_gpu_record(path, why_not);
    auto refuse = [&](const std::string& why) -> std::optional<gpu_record> {
        ADD_FAILURE() << "the GPU's record of the timed calls cannot be used: " << why
                      << ". The speed is graded from the record the grader's recorder takes; a record that is "
                         "missing or damaged earns nothing.";
        return std::nullopt;
    };
    if (!record) return refuse(why_not);
    if (record->nonce != nonce) return refuse("it was not written during this run (its nonce is not this run's)");
    if (!record->complete) return refuse("it ends before the recorder finished it");
    if (record->dropped > 0) return refuse(fmt::format("CUPTI dropped {} of its records", record->dropped));
    if (static_cast<int>(record->repetitions.size()) != work.repetitions)
        return refuse(fmt::format("it holds {} timed calls where the test made {}", record->repetitions.size(),
                                  work.repetitions));

    const auto without_kernel = std::count_if(record->repetitions.begin(), record->repetitions.end(),
                                              [](const gpu_repetition& r) { return r.kernels() == 0; });
    if (without_kernel > 0) {
        // The GPU's record says it; a profile of the student's kernels has none to show.
        next_failure_explained_beyond_the_tools();
        ADD_FAILURE() << fmt::format(
            "in {} of {} timed calls of {} no kernel ran on the GPU: the GPU's record shows {}. The work must be "
            "done by a kernel, in every call.",
            without_kernel, work.repetitions, work.name,
            record->repetitions.front().work.empty() ? "no GPU work at all in the first such call"
                                                      : "only copies or memsets");
        return std::nullopt;
    }
    for (const auto& a : record->outside) {
        if (a.what != gpu_activity::kind::kernel || is_harness_kernel(a)) continue;
        next_failure_explained_beyond_the_tools();  // when the work ran, not how fast
        ADD_FAILURE() << fmt::format(
            "a kernel ran outside the timed calls of {}: {} was launched when no call of the code under test "
            "was running (after a call had returned, or while the test prepared one). Work done before or after "
            "a call is not timed, so it is not allowed: a call launches all of its work before it returns.",
            work.name, readable_kernel_name(a.name));
        return std::nullopt;
    }
    return record;
}

// The nonce the grader gave this run; empty (after saying why that fails
// the test) when it gave none.
std::string grader_nonce(const timed_calls& work) {
    const char* nonce = std::getenv(gpu_record_nonce_variable);
    if (nonce && *nonce) return nonce;
    ADD_FAILURE() << "the grader has no GPU recorder (it was built without CUPTI), so the speed of " << work.name
                  << " cannot be graded from the GPU's own record. Build the course with the full CUDA "
                     "toolkit (CUPTI is part of it).";
    return {};
}

// The calls, with the recorder's marks around each (when `r` is recording),
// and what the output held before and after each, as evidence.
void make_calls(const timed_calls& work, cudaStream_t stream, const recorder* r) {
    // What the output held before each call, so that a wrong answer can be
    // told apart from one left over ("the previous call's").
    device_array<float> before(work.output.size());
    for (int k = 0; k < work.repetitions; ++k) {
        work.fresh_inputs(inputs_seed(k), stream);
        // cudaMemcpyDefault: the output may be pinned host memory (lesson05).
        CUDA_CHECK(cudaMemcpyAsync(before.data(), work.output.data(), before.size() * sizeof(float),
                                   cudaMemcpyDefault, stream));
        CUDA_CHECK(cudaDeviceSynchronize());
        if (r) r->mark("begin", k);
        work.call(stream);
        // The call is over when it returns: a launch made after that (by a
        // thread it left behind) is work left for later, whether or not the
        // GPU is still busy with the call's own work then. Marked before the
        // wait, so that how long the wait takes (the GPU shared in a batch)
        // cannot decide whether such a launch counts as part of the call.
        if (r) r->mark("end", k);
        // The whole device: work on a stream of the call's own counts too.
        CUDA_CHECK(cudaDeviceSynchronize());
        const auto positions = observe("positions", positions_nobody_knows(work.output.size()));
        observe("values before the call", read_at(before.view(), positions));
        observe("values", read_at(work.output, positions));
    }
}

// The student's program: the calls, recorded.
void record_calls(const timed_calls& work, cudaStream_t stream) {
    const recorder* r = grader_recorder(std::getenv(gpu_recorder_variable));
    const std::string path = evidence_file_for_this_test(gpu_record_suffix);
    const char* nonce = std::getenv(gpu_record_nonce_variable);
    const bool recording = r && !path.empty() && r->start(path.c_str(), nonce ? nonce : "") == 0;
    // Where this process placed the arrays: the judge maps the recorded
    // launches' pointers onto its own copies by them.
    if (!work.arrays.empty()) observe("arrays", placement(work));
    // A call the judge replays: memory it keeps between calls is copied as
    // each call finds it, so that the replay starts with the same.
    if (recording && !work.arrays.empty() && r->keep_memory) r->keep_memory(1);
    make_calls(work, stream, recording ? r : nullptr);
    if (recording) r->stop();
    verdict_left_to_judge();
}

// The judge: the same calls with the reference, the student's values
// checked, then the student's record checked.
std::optional<gpu_record> judge_calls(const timed_calls& work, cudaStream_t stream,
                                      std::vector<std::uint64_t>& student_arrays) {
    if (!work.arrays.empty()) student_arrays = observe("arrays", placement(work));
    output_findings findings;
    for (int k = 0; k < work.repetitions; ++k) {
        work.fresh_inputs(inputs_seed(k), stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        auto positions = observe("positions", std::vector<std::uint64_t>{});
        const bool in_bounds = !positions.empty() && std::all_of(positions.begin(), positions.end(), [&](auto p) {
            return p < work.output.size();
        });
        if (!in_bounds) positions.clear();  // the values are still read, to keep the steps in order
        // The student's own "before" only words a failure; it decides nothing.
        const auto before = observe_same_size("values before the call", read_at(work.output, positions));
        work.call(stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        const auto expected = read_at(work.output, positions);
        const auto got = observe_same_size("values", expected);
        if (!in_bounds) {
            ADD_FAILURE() << "the recorded positions of call " << k + 1 << " are not in the output";
            return std::nullopt;
        }
        const auto scale = scale_at(work, inputs_seed(k), positions, expected, stream);
        const int wrong_before = findings.wrong;
        check_call_output(work, k, positions, before, expected, scale, got, findings);
        if (wrong_before == 0 && findings.wrong > 0)
            findings.precision = reduced_precision_at(work, inputs_seed(k), positions, scale, got, stream);
    }
    if (findings.wrong > 0) {
        report_outputs(work, findings);
        return std::nullopt;
    }
    const std::string nonce = grader_nonce(work);
    if (nonce.empty()) return std::nullopt;
    return checked_record(work, evidence_file_for_this_test(gpu_record_suffix), nonce);
}

// Outside the grader, with the recorder the build made: the calls recorded
// into a file of this process's own and read back, unchecked.
std::optional<gpu_record> record_here(const timed_calls& work, cudaStream_t stream) {
    const recorder* r = grader_recorder(built_recorder());
    if (!r) return std::nullopt;
    const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                       fmt::format("course-{}-{}.gpu_record", getpid(), work.name);
    if (r->start(path.c_str(), "here") != 0) return std::nullopt;
    make_calls(work, stream, r);
    r->stop();
    std::string why_not;
    auto record = read_gpu_record(path.string(), why_not);
    std::filesystem::remove(path);
    if (!record) ADD_FAILURE() << "the GPU's record of " << work.name << " cannot be read: " << why_not;
    return record;
}

// Anywhere else: events around each call, on its stream.
// In the judge, lesson05's yardstick (time_pipeline) is timed the same way,
// each call after the persisting L2 lines are cleared, as before a replay.
enum class l2_lines { as_left, cleared };
double event_time_calls(const timed_calls& work, cudaStream_t stream, l2_lines l2 = l2_lines::as_left) {
    std::vector<double> ms;
    for (int k = 0; k < work.repetitions; ++k) {
        work.fresh_inputs(inputs_seed(k), stream);
        if (l2 == l2_lines::cleared) detail::clear_persisting_l2();
        CUDA_CHECK(cudaDeviceSynchronize());
        event_timer timer;
        timer.start(stream);
        work.call(stream);
        timer.stop(stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        ms.push_back(timer.elapsed().count());
    }
    return summarize(ms).median;
}

// One untimed call first: loading modules and the first touch of memory
// are not the code's speed. Its inputs are the last call's seed + 1.
void warm_up(const timed_calls& work, cudaStream_t stream) {
    work.fresh_inputs(inputs_seed(work.repetitions), stream);
    detail::call_after(work, stream);
    CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

std::optional<double> time_calls(const timed_calls& work) {
    const course::stream stream;
    warm_up(work, stream);
    std::optional<gpu_record> record;
    std::vector<std::uint64_t> student_arrays;
    switch (current_evidence_mode()) {
        case evidence_mode::record: record_calls(work, stream); return std::nullopt;
        case evidence_mode::judge: record = judge_calls(work, stream, student_arrays); break;
        case evidence_mode::off: return event_time_calls(work, stream);
    }
    if (!record) return std::nullopt;
    if (!work.arrays.empty()) return replay_calls(work, *record, student_arrays, stream);
    // The record's own times were taken in the student's program, which in
    // a batch records a speed test the judge times beside other runs' work
    // (only the judge's test has the GPU alone then): such a test's time must
    // come from the replay.
    if (const graded_test_info* graded = current_graded(); graded && graded->timed_by_judge) {
        ADD_FAILURE() << "the course's test of " << work.name << " gives the judge no arrays to replay the calls on "
                      << "(timed_calls::arrays), so it could only take the time the student's program recorded. "
                         "List the call's arrays, or declare the test GRADED_PERF_TEST_SYSTEM, whose time the "
                         "student's program takes with the GPU alone.";
        return std::nullopt;
    }
    std::vector<double> ms;
    for (const auto& r : record->repetitions) ms.push_back(static_cast<double>(r.span()) / 1e6);
    return summarize(ms).median;
}

double time_yardstick(const timed_calls& work) {
    const course::stream stream;
    warm_up(work, stream);
    pinned_array<unsigned> hold_flag(1);
    std::vector<double> ms;
    for (int k = 0; k < work.repetitions; ++k) {
        work.fresh_inputs(inputs_seed(k), stream);
        detail::clear_persisting_l2();  // as before a replay (replayed_calls.cpp)
        CUDA_CHECK(cudaDeviceSynchronize());
        event_timer timer;
        detail::time_behind_hold(stream, hold_flag, timer, [&] { work.call(stream); });
        CUDA_CHECK(cudaStreamSynchronize(stream));
        ms.push_back(timer.elapsed().count());
    }
    return summarize(ms).median;
}

std::optional<gpu_record> recorded_calls(const timed_calls& work) {
    const course::stream stream;
    warm_up(work, stream);
    switch (current_evidence_mode()) {
        case evidence_mode::record: record_calls(work, stream); return std::nullopt;
        case evidence_mode::judge: {
            std::vector<std::uint64_t> student_arrays;
            return judge_calls(work, stream, student_arrays);
        }
        case evidence_mode::off: break;
    }
    return record_here(work, stream);
}

std::optional<pipeline_times> time_pipeline(const timed_calls& work, const timed_calls& serial) {
    const course::stream stream;
    warm_up(work, stream);
    pipeline_times times;
    switch (current_evidence_mode()) {
        case evidence_mode::record: record_calls(work, stream); return std::nullopt;
        case evidence_mode::off:
            times.record = record_here(work, stream);
            if (!times.record) return std::nullopt;
            return times;
        case evidence_mode::judge: break;
    }
    std::vector<std::uint64_t> student_arrays;
    times.record = judge_calls(work, stream, student_arrays);
    if (!times.record) return std::nullopt;
    times.replay_ms = detail::replay_calls(work, *times.record, student_arrays, stream,
                                           detail::replay_order::streams_as_recorded, &times.not_replayed);
    if (!times.replay_ms && times.not_replayed.empty()) return std::nullopt;  // it failed the test: a wrong answer
    // Timed by the judge either way: where the calls could not be replayed,
    // the record gives only the span, and the same work one step after
    // another is still the judge's, so that work the pipeline does not need
    // (a kernel that idles beside it) cannot make it look overlapped.
    warm_up(serial, stream);
    times.one_after_another_ms = event_time_calls(serial, stream, l2_lines::cleared);
    return times;
}

}  // namespace course::testing
