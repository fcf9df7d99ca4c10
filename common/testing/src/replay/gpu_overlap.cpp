#include "course/testing/gpu_overlap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

namespace course::testing {

namespace {

using interval = std::pair<std::uint64_t, std::uint64_t>;

// The time covered by at least one of the intervals.
std::uint64_t covered(std::vector<interval> spans) {
    std::sort(spans.begin(), spans.end());
    std::uint64_t total = 0, reach = 0;
    for (const auto& [start, end] : spans) {
        const std::uint64_t from = std::max(start, reach);
        if (end > from) total += end - from;
        reach = std::max(reach, end);
    }
    return total;
}

// API calls after which the host has waited for the GPU: the CUDA
// documentation's synchronizing calls (a synchronize, a copy without Async,
// a free), in the runtime's and the driver's names.
bool waits_for_the_gpu(const std::string& base) {
    static const std::set<std::string> waiting = {
        "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
        "cudaMemcpy",            "cudaMemcpy2D",          "cudaMemcpy3D",         "cudaMemcpyToSymbol",
        "cudaMemcpyFromSymbol",  "cudaFree",              "cudaFreeHost",         "cuStreamSynchronize",
        "cuCtxSynchronize",      "cuEventSynchronize",    "cuMemcpy",             "cuMemcpyHtoD",
        "cuMemcpyDtoH",          "cuMemcpyDtoD",          "cuMemFree",            "cuMemFreeHost",
    };
    return waiting.count(base) > 0;
}

bool is_driver_call(const gpu_api_call& call) { return call.name.rfind("cu", 0) == 0 && call.name.rfind("cuda", 0) != 0; }

// A driver call made inside a runtime call is the runtime's doing, not a
// second call of the code's.
bool inside_a_runtime_call(const gpu_api_call& call, const std::vector<gpu_api_call>& calls) {
    return std::any_of(calls.begin(), calls.end(), [&](const gpu_api_call& outer) {
        return !is_driver_call(outer) && outer.start <= call.start && call.end <= outer.end;
    });
}

std::string ms(std::uint64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }

}  // namespace

gpu_lane lane_of(const gpu_activity& work) {
    if (work.what == gpu_activity::kind::kernel) return gpu_lane::kernel;
    if (work.what == gpu_activity::kind::copy && work.name == "HtoD") return gpu_lane::copy_in;
    if (work.what == gpu_activity::kind::copy && work.name == "DtoH") return gpu_lane::copy_out;
    return gpu_lane::other;
}

double gpu_overlap::factor() const {
    return span == 0 ? 0.0 : static_cast<double>(copy_in + kernels + copy_out) / static_cast<double>(span);
}

gpu_overlap analyse_overlap(const gpu_repetition& call) {
    gpu_overlap o;
    o.span = call.span();
    std::vector<interval> in, kernel, out, all;
    std::set<std::uint32_t> streams, queueing;
    for (const gpu_activity& w : call.work) {
        all.emplace_back(w.start, w.end);
        queueing.insert(w.correlation);
        const gpu_lane lane = lane_of(w);
        if (lane == gpu_lane::other) continue;
        streams.insert(w.stream);
        if (lane == gpu_lane::kernel) {
            kernel.emplace_back(w.start, w.end);
            ++o.kernel_count;
            continue;
        }
        const bool is_in = lane == gpu_lane::copy_in;
        (is_in ? in : out).emplace_back(w.start, w.end);
        (is_in ? o.bytes_in : o.bytes_out) += w.bytes;
        ++(is_in ? o.copies_in : o.copies_out);
        if ((is_in ? w.from : w.to) == "pageable") ++o.pageable_copies;
    }
    o.copy_in = covered(std::move(in));
    o.kernels = covered(std::move(kernel));
    o.copy_out = covered(std::move(out));
    o.idle = o.span - std::min(o.span, covered(std::move(all)));
    o.streams = static_cast<int>(streams.size());

    // From the first call that queued work to the last one.
    std::uint64_t first = UINT64_MAX, last = 0;
    for (const gpu_api_call& c : call.calls)
        if (queueing.count(c.correlation)) {
            first = std::min(first, c.start);
            last = std::max(last, c.start);
        }
    for (const gpu_api_call& c : call.calls)
        if (c.start > first && c.start < last && waits_for_the_gpu(c.base_name()) &&
            !(is_driver_call(c) && inside_a_runtime_call(c, call.calls)))
            ++o.waits_while_queueing[c.base_name()];
    return o;
}

std::vector<std::string> what_serialised(const gpu_overlap& o) {
    std::vector<std::string> seen;
    const int copies = o.copies_in + o.copies_out;
    if (o.pageable_copies > 0)
        seen.push_back(fmt::format(
            "{} of the {} copies in and out had pageable memory on the host side. The driver stages such "
            "a copy through a pinned buffer of its own, and it does not overlap with kernels: copy straight "
            "from host_in and into host_out, which are pinned.",
            o.pageable_copies, copies));
    if (o.streams == 1 && copies + o.kernel_count > 1)
        seen.push_back(
            "every copy and kernel ran on one stream. A stream runs its work in order, one step after "
            "another: put chunk c's copy in, kernel and copy out on stream c % num_streams.");
    if (!o.waits_while_queueing.empty()) {
        std::string calls;
        for (const auto& [name, count] : o.waits_while_queueing)
            calls += fmt::format("{}{} ({}x)", calls.empty() ? "" : ", ", name, count);
        seen.push_back(fmt::format(
            "while the chunks were still being queued, the code called {}. Each of these makes the host wait "
            "for the GPU, so the next chunk is queued only once the work before it has finished. Queue every "
            "chunk first, and wait once, after the loop.",
            calls));
    }
    if (o.span > 0 && o.idle * 10 > o.span)
        seen.push_back(fmt::format(
            "for {} of the {} the GPU ran nothing at all: no work was queued for it then.", ms(o.idle), ms(o.span)));
    return seen;
}

}  // namespace course::testing
