// Graded test for lesson04's async_pool on a stream created with
// cudaStreamNonBlocking, which the legacy default stream does not wait for:
// deallocate queues the free on the stream it is given, so the block goes
// back to the pool only when that stream gets there, after the work queued
// on it before. The stream is held by the harness's kernel
// (course/testing/stream_order.hpp); what the test reads back is evidence
// (course/testing/evidence.hpp).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "async_pool.cuh"
#include "course/compare.hpp"
#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/pinned_array.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/stream_order.hpp"
#include "test_kernels.hpp"

namespace {

using namespace lesson04_tests;
using course::with_commas;
using course::testing::observe;
using course::testing::observe_same_size;

// 2 MiB of ints: a whole granule of the pool's memory, so the block that
// stream t gets is the one freed on s whenever the pool lets it be.
constexpr std::size_t n = std::size_t{1} << 19;
constexpr std::size_t bytes = n * sizeof(int);
constexpr int kept = 7;    // stream s writes it into its block before the hold
constexpr int added = 1;   // the kernel behind the hold: output = block + 1
constexpr int other = -5;  // stream t writes it into the block it gets
constexpr int right = kept + added, overwritten = other + added;

course::device_span<int> ints(void* p) { return {static_cast<int*>(p), n}; }

struct handover {
    std::vector<int> output;  // read back on stream s
    bool same_block;          // stream t got the block freed on s
};

enum class run {
    idle,    // s has finished its work when the block is freed
    held,    // s is held: the kernel that reads the block has not run when it is freed
    replay,  // held, and deallocate is given the legacy default stream: the mistake, made on purpose
};

// Stream s: a block of the pool, filled with `kept`; a kernel that reads it
// into the output (behind a hold of s, unless idle); the block's deallocate.
// Stream t: a block of the same size from the same pool, which the test
// allocates itself (cudaMallocFromPoolAsync on t, right by construction), and
// fills with `other` at once. The output is read back on s.
handover hand_over(run how) {
    const course::stream s, t;
    lesson04::async_pool pool;
    course::device_array<int> output(n);
    output.fill_bytes(0xFF);  // -1: never written
    CUDA_CHECK(cudaDeviceSynchronize());
    course::pinned_array<int> back(n);
    void* p = pool.allocate(bytes, s);
    launch_fill(s, ints(p), kept);
    void* q = nullptr;
    {
        std::optional<course::testing::stream_hold> hold;
        if (how != run::idle) {
            course::testing::require_across_streams("a stream_hold");
            hold.emplace(s.get());
        }
        launch_add(s, ints(p), output.view(), added);
        if (how == run::idle) s.synchronize();
        pool.deallocate(p, bytes, how == run::replay ? cudaStreamLegacy : s.get());
        // A free that was not queued behind the hold (the mistake) is done by
        // now, so the pool may hand its block on at once: the mistake shows
        // whichever of its reuse rules the pool applies.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        CUDA_CHECK(cudaMallocFromPoolAsync(&q, bytes, pool.get(), t));
        launch_fill(t, ints(q), other);
        CUDA_CHECK(cudaMemcpyAsync(back.data(), output.data(), bytes, cudaMemcpyDeviceToHost, s));
        if (hold) hold->release();
        s.synchronize();
    }
    t.synchronize();
    CUDA_CHECK(cudaFreeAsync(q, t));
    t.synchronize();
    return {{back.begin(), back.end()}, q == p};
}

handover observed(const std::string& what, handover h) {
    h.output = observe_same_size(what + ": output", std::move(h.output));
    h.same_block = observe(what + ": stream t got the block freed on s", h.same_block);
    return h;
}

// The first element that is not `right`, in words.
std::string first_wrong(const std::vector<int>& output) {
    const auto wrong = std::find_if(output.begin(), output.end(), [](int v) { return v != right; });
    if (wrong == output.end()) return {};
    return fmt::format("element {} holds {}, expected {}", with_commas(static_cast<std::size_t>(wrong - output.begin())), *wrong, right);
}

}  // namespace

GRADED_STREAM_TEST(AsyncPool, HonoursStream, 1,
            "deallocate honours a non-blocking stream with work queued ahead (2 MiB)") {
    warm_up_kernels();  // loaded now: loading a kernel while s is held could wait for the hold
    const handover idle = observed("on an idle stream", hand_over(run::idle));
    const handover held = observed("behind a hold", hand_over(run::held));
    if (const std::string what = first_wrong(idle.output); !what.empty()) {
        ADD_FAILURE() << "a kernel on stream s read a block of the pool into the output, and " << what
                      << ", even with stream s finished before the block was freed: the pool's memory did not hold "
                         "what was written into it. AsyncPool.AllocateAndFree says more.";
        return;
    }
    const std::string what = first_wrong(held.output);
    if (what.empty()) return;

    const auto count = static_cast<std::size_t>(std::count(held.output.begin(), held.output.end(), overwritten));
    // The mistake is named only if making it on purpose gives the same
    // output: in the judge, with the reference solution's deallocate.
    const handover replayed = hand_over(run::replay);
    if (held.same_block && count > 0 && replayed.same_block && replayed.output == held.output) {
        // Seen whole: no compute-sanitizer tool looks at which stream a free ran on.
        course::testing::next_failure_explained_beyond_the_tools();
        ADD_FAILURE() << fmt::format(
            "deallocate did not run on the stream it was given: {} of {} elements of the output hold {}, what "
            "stream t wrote into its block plus {}, not {}.\n"
            "A kernel queued on stream s (created with cudaStreamNonBlocking) behind a kernel that held it was to "
            "read the block; deallocate(p, bytes, s) came next, and the pool handed the block to stream t (the same "
            "pointer), which wrote it before that kernel ran. Freed on the legacy default stream, the block does "
            "exactly this: the default stream does not wait for a non-blocking stream. Free with "
            "`cudaFreeAsync(p, stream)`: the block then returns to the pool only when the stream reaches the free.",
            with_commas(count), with_commas(n), overwritten, added, right);
        return;
    }
    ADD_FAILURE() << "the output read back on stream s was wrong: " << what << " (" << with_commas(count) << " of "
                  << with_commas(n) << " hold " << overwritten << ", what stream t wrote into its block plus "
                  << added << "; t " << (held.same_block ? "got" : "did not get")
                  << " the block freed on s).\nA kernel queued on stream s behind a kernel that held it was to read "
                     "the block before deallocate(p, bytes, s); the block may go to another stream only once s has "
                     "passed the free.";
}
