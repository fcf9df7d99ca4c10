// lesson05 benchmark: 256 MiB of floats through copy in, Kepler kernel and copy
// out, serially and pipelined over 1, 2, 4 and 8 streams.
//   grader bench lesson05          (or run build/bin/lesson05_exercise_bench)
//
// Both versions return only once host_out holds the result, so each iteration
// is timed on the host clock around the whole call. After timing, every
// pipelined configuration runs once more with a pipeline_trace, and the start
// and end of each copy and kernel (from events) go into a timeline file:
//   $COURSE_TIMELINE, or <build folder>/<program>_timeline.json
// `grader bench lesson05` keeps it in its JSON file; `grader plot FILE --kind timeline` draws it.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include "course/bench.hpp"
#include "course/pinned_array.hpp"
#include "streams.cuh"

#ifndef LESSON05_TIMELINE_DIR
#define LESSON05_TIMELINE_DIR "."
#endif

namespace {

constexpr std::size_t n = std::size_t{1} << 26;  // 2^26 floats = 256 MiB each way
constexpr double bytes_each_way = n * sizeof(float);

// Pinned input and output, allocated and filled once for every benchmark.
struct host_data {
    course::pinned_array<float> in{n}, out{n};
    host_data() {
        for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 2001) / 1000.0f - 1.0f;
    }
};
host_data& data() {
    static host_data d;
    return d;
}

double ms_of(const std::function<void()>& run) {
    const auto start = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Times a blocking `run` per iteration and reports the host<->device traffic
// (both directions) as GB/s. Returns the mean milliseconds per call, or
// nothing, with the benchmark marked skipped, when the implementation throws
// (an unfinished exercise, say).
std::optional<double> time_blocking(benchmark::State& state, const std::function<void()>& run) {
    try {
        run();  // warm-up: kernel loading, first touches of the buffers
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return std::nullopt;
    }
    double total_ms = 0;
    for (auto _ : state) {
        const double ms = ms_of(run);
        total_ms += ms;
        state.SetIterationTime(ms / 1e3);
    }
    const double mean_ms = total_ms / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
    if (mean_ms > 0) state.counters["GB/s"] = 2 * bytes_each_way / (mean_ms / 1e3) / 1e9;
    return mean_ms;
}

// The serial version's time, measured once, so each pipelined row can say
// how much faster it is.
double serial_ms() {
    static const double ms = [] {
        auto& d = data();
        lesson05::serial_transform(d.in.data(), d.out.data(), n);
        double best = 1e30;
        for (int i = 0; i < 3; ++i)
            best = std::min(best, ms_of([&] { lesson05::serial_transform(d.in.data(), d.out.data(), n); }));
        return best;
    }();
    return ms;
}

// The timeline file: one run per pipelined configuration, rewritten after each.
std::filesystem::path timeline_path() {
    if (const char* path = std::getenv("COURSE_TIMELINE")) return path;
    std::string program = "lesson05_bench";
    std::error_code ignored;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ignored);
    if (!self.empty()) program = self.filename().string();
    return std::filesystem::path(LESSON05_TIMELINE_DIR) / (program + "_timeline.json");
}

nlohmann::json& timeline() {
    static nlohmann::json doc = [] {
        const auto& gpu = course::bench::gpu();
        return nlohmann::json{{"lesson", "lesson05"},
                              {"device", gpu.device.name},
                              {"copy_engines", gpu.device.copy_engines},
                              {"elements", n},
                              {"bytes_each_way", n * sizeof(float)},
                              {"runs", nlohmann::json::array()}};
    }();
    return doc;
}

void record_timeline(int streams, int chunks) {
    auto& d = data();
    lesson05::pipeline_trace trace;
    const double total_ms = ms_of([&] {
        lesson05::pipelined_transform(d.in.data(), d.out.data(), n, streams, chunks, &trace);
    });
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& s : trace.spans()) {
        entries.push_back({{"stream", s.stream},
                           {"kind", lesson05::step_name(s.kind)},
                           {"chunk", s.chunk},
                           {"start_ms", s.start_ms},
                           {"end_ms", s.end_ms}});
    }
    const nlohmann::json run = {{"name", fmt::format("pipelined/streams:{}/chunks:{}", streams, chunks)},
                                {"streams", streams},
                                {"chunks", chunks},
                                {"total_ms", total_ms},
                                {"serial_ms", serial_ms()},
                                {"entries", entries}};
    // Google Benchmark may call a benchmark several times while it settles on
    // an iteration count: keep one run per configuration, the latest.
    auto& runs = timeline()["runs"];
    const auto same = std::find_if(runs.begin(), runs.end(), [&](const auto& r) { return r["name"] == run["name"]; });
    if (same != runs.end()) *same = run;
    else runs.push_back(run);
    const auto path = timeline_path();
    std::ofstream(path) << timeline().dump(1) << "\n";
    if (entries.empty())
        std::fprintf(stderr, "timeline: pipelined_transform recorded no steps (it ignores `trace`)\n");
}

void BM_serial(benchmark::State& state) {
    auto& d = data();
    time_blocking(state, [&] { lesson05::serial_transform(d.in.data(), d.out.data(), n); });
}

void BM_pipelined(benchmark::State& state) {
    const int streams = static_cast<int>(state.range(0));
    const int chunks = static_cast<int>(state.range(1));
    auto& d = data();
    const auto mean_ms = time_blocking(
        state, [&] { lesson05::pipelined_transform(d.in.data(), d.out.data(), n, streams, chunks); });
    if (!mean_ms) return;
    state.counters["streams"] = streams;
    state.counters["chunks"] = chunks;
    try {
        state.counters["vs_serial"] = serial_ms() / *mean_ms;  // speed-up over the serial version
        record_timeline(streams, chunks);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "timeline not written: %s\n", e.what());
    }
}

}  // namespace

BENCHMARK(BM_serial)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pipelined)
    ->ArgNames({"streams", "chunks"})
    ->ArgsProduct({{1, 2, 4, 8}, {8, 32}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
