#include "course/testing/performance.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "course/device_info.hpp"
#include "course/cuda_error.hpp"
#include "course/testing/evidence.hpp"

namespace course::testing {

namespace {

// The figure the running test said last; tests run one at a time.
std::string& reported_figure() {
    static std::string figure;
    return figure;
}

// Why a launch of 2048 threads a block returned normally, from the error CUDA
// still held afterwards: a refusal left unread names the unchecked launch;
// with none, no such launch was refused, so none was made as asked.
std::string why_not_refused(cudaError_t pending) {
    if (pending == cudaErrorInvalidConfiguration || pending == cudaErrorInvalidValue)
        return fmt::format(
            "CUDA refused the launch ({} was still pending afterwards): the launch failed and "
            "nobody noticed.\nCheck every launch with CUDA_CHECK(cudaGetLastError()).",
            cudaGetErrorName(pending));
    if (pending != cudaSuccess)
        return fmt::format("{} was still pending afterwards, and nothing reported it: check every "
                           "launch with CUDA_CHECK(cudaGetLastError()).",
                           cudaGetErrorName(pending));
    return "No launch error was pending afterwards either, so no kernel was launched with 2048 "
           "threads a block. Possible reasons: the work was done without a kernel (on the host, "
           "or by a library), the block size asked for was not the one launched, or the launch's "
           "error was read (cudaGetLastError) and dropped.";
}

}  // namespace

std::size_t gpu_memory_budget() {
    // Under the grader: the free memory it measured once before the tests
    // started, the same figure in the student's program and in the judge.
    if (const char* budget = std::getenv(gpu_memory_budget_variable); budget && *budget) {
        char* end = nullptr;
        const unsigned long long bytes = std::strtoull(budget, &end, 10);
        if (end && *end == '\0' && bytes > 0) return static_cast<std::size_t>(bytes);
    }
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

std::size_t elements_that_fit(std::size_t most, int arrays, std::size_t element_bytes) {
    return std::min(most, gpu_memory_budget() / 4 / static_cast<std::size_t>(arrays) / element_bytes);
}

void expect_bandwidth_share(const timed_calls& work, double bytes, std::size_t copy_bytes, double min_share,
                            const std::string& advice) {
    // In the student's program the calls are made and recorded; the judge
    // replays them and times the replays (or, for a call it does not
    // replay, takes their time from the GPU's record), and measures the copy
    // itself.
    const std::optional<double> ms = time_calls(work);
    if (verdict_left_to_judge() || !ms) return;
    const double gbps = bytes / (*ms * 1e-3) / 1e9;
    const double copy = measured_copy_bandwidth_gbps(copy_bytes);
    const double share = gbps / copy;
    ::testing::Test::RecordProperty("bandwidth_gbps", std::to_string(gbps));
    report_figure(fmt::format("{:.0f} GB/s, {:.0f}% of this GPU's copy bandwidth ({:.0f} GB/s); {:.0f}% is needed", gbps,
                              100 * share, copy, 100 * min_share));
    if (const std::string impossible =
            beyond_ceiling(share, most_copy_share, fmt::format("{:.0f} GB/s", gbps),
                           fmt::format("{:.0f}% of the copy bandwidth measured in the same run ({:.0f} GB/s), where "
                                       "the fastest kernels that move every byte reach about 107%",
                                       100 * share, copy));
        !impossible.empty()) {
        ADD_FAILURE() << impossible;
        return;
    }
    EXPECT_GE(share, min_share) << fmt::format(
        "{:.0f} GB/s ({:.1f} us a call, the median of {} {}) is {:.0f}% of this GPU's measured copy bandwidth "
        "({:.0f} GB/s); {:.0f}% is needed.\n{}",
        gbps, *ms * 1e3, work.repetitions,
        work.arrays.empty() ? "calls on the GPU's record" : "replays of your calls by the judge", 100 * share, copy,
        100 * min_share, advice);
}

int float32_lanes_per_sm(int major, int minor) {
    if (major == 6 && minor == 0) return 64;
    if (major == 7 || (major == 8 && minor == 0)) return 64;
    return 128;
}

double peak_float32_gflops(int major, int minor, int sms, int clock_khz) {
    return 2.0 * float32_lanes_per_sm(major, minor) * sms * (clock_khz * 1e3) / 1e9;
}

double peak_float32_gflops() {
    const device_properties p = query_device();
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, p.ordinal));
    return peak_float32_gflops(p.major, p.minor, p.sm_count, clock_khz);
}

std::string beyond_ceiling(double figure, double ceiling, const std::string& what, const std::string& ceiling_is) {
    if (!(figure > ceiling)) return {};
    return fmt::format(
        "{} is more than this GPU can do: {}. No right answer gets there, so the work was not all done in the "
        "time measured (part of it skipped, done earlier, or done by other hardware than the test asks for).",
        what, ceiling_is);
}

void report_figure(const std::string& line) { reported_figure() = line; }

std::string take_reported_figure() { return std::exchange(reported_figure(), std::string{}); }

void expect_launch_refused(const std::function<void()>& launch, const std::string& what) {
    // What happened is evidence: the error code thrown, or -1 for none; and,
    // when none was thrown, the error CUDA still holds (a refused launch
    // leaves one until cudaGetLastError reads it).
    constexpr int returned_normally = -1;
    int outcome = returned_normally;
    int pending = cudaSuccess;
    std::string thrown;
    try {
        launch();
        pending = cudaGetLastError();
        if (pending == cudaSuccess) pending = cudaDeviceSynchronize();
    } catch (const cuda_error& e) {
        outcome = static_cast<int>(e.code());
        thrown = e.what();
    }
    const int observed = observe("launch outcome", outcome);
    pending = observe("error left pending", pending);
    if (observed != outcome) thrown = cudaGetErrorName(static_cast<cudaError_t>(observed));
    if (observed == returned_normally) {
        ADD_FAILURE() << what << " returned normally, but no GPU runs blocks of more than 1024 threads.\n"
                      << why_not_refused(static_cast<cudaError_t>(pending));
        return;
    }
    // CUDA 12 calls this launch cudaErrorInvalidConfiguration, CUDA 13
    // cudaErrorInvalidValue; either is the launch being refused.
    EXPECT_TRUE(observed == cudaErrorInvalidConfiguration || observed == cudaErrorInvalidValue)
        << "expected the launch to be refused (cudaErrorInvalidConfiguration or "
           "cudaErrorInvalidValue), got "
        << thrown;
}

}  // namespace course::testing
