#include "course/testing/timed_calls.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/gpu_record.hpp"
#include "course/testing/graded.hpp"
#include "course/timing.hpp"

namespace course::testing {

namespace {

// Positions read after each call: the first, the last, and this many more.
constexpr int drawn_positions = 30;

// The grader's recorder, loaded into this process the first time a timed
// test asks for it; nullptr where the grader named none.
struct recorder {
    gpu_record_start_fn start = nullptr;
    gpu_record_mark_fn mark = nullptr;
    gpu_record_stop_fn stop = nullptr;
};

const recorder* grader_recorder() {
    static const recorder* loaded = []() -> const recorder* {
        const char* path = std::getenv(gpu_recorder_variable);
        if (!path || !*path) return nullptr;
        // Kept loaded for the rest of the process: CUPTI hands it buffers.
        void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!library) return nullptr;
        static recorder r;
        r.start = reinterpret_cast<gpu_record_start_fn>(dlsym(library, gpu_record_start_symbol));
        r.mark = reinterpret_cast<gpu_record_mark_fn>(dlsym(library, gpu_record_mark_symbol));
        r.stop = reinterpret_cast<gpu_record_stop_fn>(dlsym(library, gpu_record_stop_symbol));
        return r.start && r.mark && r.stop ? &r : nullptr;
    }();
    return loaded;
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

bool close(float got, float expected, double tolerance) {
    return std::isfinite(got) && std::abs(double{got} - expected) <= tolerance * std::max(1.0, std::abs(double{expected}));
}

// What the judge saw of the calls' outputs.
struct output_findings {
    int wrong = 0;  // calls with at least one wrong value
    int stale = 0;  // of those, calls whose every wrong value was what the output held before the call
    std::string first;  // the first wrong value, in words
};

void check_call_output(const timed_calls& work, int call, const std::vector<std::uint64_t>& positions,
                       const std::vector<float>& before, const std::vector<float>& expected,
                       const std::vector<float>& got, output_findings& findings) {
    bool wrong = false, all_stale = true;
    for (std::size_t p = 0; p < positions.size(); ++p) {
        if (close(got[p], expected[p], work.tolerance)) continue;
        const bool stale = close(got[p], before[p], work.tolerance);
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
    ADD_FAILURE() << what << ".\n"
                  << f.first << ".\nEvery call gets new inputs, and must compute its answer from them: an answer "
                                "kept from an earlier call, or work left for later, is not a speed.";
}

bool is_harness_kernel(const gpu_activity& a) { return a.name.find("course_harness_") != std::string::npos; }

// The GPU time per call from the record, or nullopt after saying why not.
std::optional<double> time_from_record(const timed_calls& work, const std::string& path) {
    const char* nonce = std::getenv(gpu_record_nonce_variable);
    if (!nonce || !*nonce) {
        ADD_FAILURE() << "the grader has no GPU recorder (it was built without CUPTI), so the speed of " << work.name
                      << " cannot be graded from the GPU's own record. Build the course with the full CUDA "
                         "toolkit (CUPTI is part of it).";
        return std::nullopt;
    }
    std::string why_not;
    const auto record = read_gpu_record(path, why_not);
    auto refuse = [&](const std::string& why) -> std::optional<double> {
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

    int without_kernel = 0;
    std::vector<double> ms;
    for (const auto& r : record->repetitions) {
        if (r.kernels() == 0) ++without_kernel;
        ms.push_back(static_cast<double>(r.span()) / 1e6);
    }
    if (without_kernel > 0) {
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
        ADD_FAILURE() << fmt::format(
            "a kernel ran outside the timed calls of {}: {} was launched while the test was checking or "
            "preparing, not while it called the code under test. Work done before or after a call is not timed, "
            "so it is not allowed.",
            work.name, readable_kernel_name(a.name));
        return std::nullopt;
    }
    return summarize(ms).median;
}

// The student's program: the calls, with the recorder's marks around each.
std::optional<double> record_calls(const timed_calls& work, cudaStream_t stream) {
    const recorder* r = grader_recorder();
    const std::string path = evidence_file_for_this_test(gpu_record_suffix);
    const char* nonce = std::getenv(gpu_record_nonce_variable);
    // What the output held before each call, so that a wrong answer can be
    // told apart from one left over ("the previous call's").
    device_array<float> before(work.output.size());
    const bool recording = r && !path.empty() && r->start(path.c_str(), nonce ? nonce : "") == 0;
    for (int k = 0; k < work.repetitions; ++k) {
        work.fresh_inputs(inputs_seed(k), stream);
        CUDA_CHECK(cudaMemcpyAsync(before.data(), work.output.data(), before.size() * sizeof(float),
                                   cudaMemcpyDeviceToDevice, stream));
        CUDA_CHECK(cudaDeviceSynchronize());
        if (recording) r->mark("begin", k);
        work.call(stream);
        // The whole device: work on a stream of the call's own counts too.
        CUDA_CHECK(cudaDeviceSynchronize());
        if (recording) r->mark("end", k);
        const auto positions = observe("positions", positions_nobody_knows(work.output.size()));
        observe("values before the call", read_at(before.view(), positions));
        observe("values", read_at(work.output, positions));
    }
    if (recording) r->stop();
    verdict_left_to_judge();
    return std::nullopt;
}

// The judge: the same calls with the reference, the student's values checked.
std::optional<double> judge_calls(const timed_calls& work, cudaStream_t stream) {
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
        check_call_output(work, k, positions, before, expected, got, findings);
    }
    if (findings.wrong > 0) {
        report_outputs(work, findings);
        return std::nullopt;
    }
    return time_from_record(work, evidence_file_for_this_test(gpu_record_suffix));
}

// Anywhere else: events around each call, on its stream.
double event_time_calls(const timed_calls& work, cudaStream_t stream) {
    std::vector<double> ms;
    for (int k = 0; k < work.repetitions; ++k) {
        work.fresh_inputs(inputs_seed(k), stream);
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

}  // namespace

std::optional<double> time_calls(const timed_calls& work) {
    const course::stream stream;
    // One untimed call first: loading modules and the first touch of memory
    // are not the code's speed. Its inputs are the last call's seed + 1.
    work.fresh_inputs(inputs_seed(work.repetitions), stream);
    work.call(stream);
    CUDA_CHECK(cudaDeviceSynchronize());
    switch (current_evidence_mode()) {
        case evidence_mode::record: return record_calls(work, stream);
        case evidence_mode::judge: return judge_calls(work, stream);
        case evidence_mode::off: break;
    }
    return event_time_calls(work, stream);
}

}  // namespace course::testing
