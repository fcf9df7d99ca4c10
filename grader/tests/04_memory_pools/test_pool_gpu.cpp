// Graded tests for lesson04's memory_pool on a GPU: real device memory from
// cudaMalloc, kernels that keep blocks busy, and streams. What the tests
// learn of the pool is evidence (pool_checks.hpp); the device memory it hands
// out is read back by the test and observed as the few facts checked of it.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/graders_clock.hpp"
#include "course/testing/performance.hpp"
#include "memory_pool.cuh"
#include "pool_checks.hpp"
#include "test_kernels.hpp"
#include "test_upstream.hpp"

namespace {

using namespace lesson04_tests;
using namespace std::chrono_literals;
using course::testing::observe;

constexpr std::size_t MiB = 1024 * 1024;

// Long enough that the host is done with everything it queues after the
// kernel well before the kernel ends, even under a sanitizer.
constexpr auto busy_time = 50ms;

std::vector<int> copy_to_host(const void* device, std::size_t n) {
    std::vector<int> host(n);
    CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(int), cudaMemcpyDeviceToHost));
    return host;
}

// Whether `stream` still has unfinished work.
bool busy(cudaStream_t stream) {
    const cudaError_t status = cudaStreamQuery(stream);
    if (status == cudaErrorNotReady) return true;
    CUDA_CHECK(status);
    return false;
}

course::device_span<int> ints(void* p, std::size_t bytes) {
    return {static_cast<int*>(p), bytes / sizeof(int)};
}

}  // namespace

GRADED_STREAM_TEST(MemoryPool, CupyWalkthrough, 2,
            "CuPy's walkthrough: a 400-byte array uses 512; freed, kept; free_all_blocks") {
    counting_upstream upstream(lesson04::cuda_malloc_upstream());
    lesson04::memory_pool pool(upstream);
    {
        course::device_array<float> a(100, pool);  // 400 bytes, like cupy.ndarray(100, cupy.float32)
        expect_stats(pool, upstream, {512, 512, 0}, "with a 100-float array (400 bytes) alive");

        cudaPointerAttributes attributes = {};
        CUDA_CHECK(cudaPointerGetAttributes(&attributes, a.data()));
        if (observe("memory type", attributes.type) != cudaMemoryTypeDevice)
            ADD_FAILURE() << "the pool should hand out device memory";
        std::vector<float> values(100);
        std::iota(values.begin(), values.end(), 0.5f);
        a.copy_from_host(values.data(), values.size());
        if (observe("the array's contents", a.to_host()) != values)
            ADD_FAILURE() << "the array's memory from the pool did not hold what was copied in";
    }
    expect_stats(pool, upstream, {0, 512, 1}, "after the array was destroyed");
    pool.free_all_blocks();
    expect_stats(pool, upstream, {0, 0, 0}, "after free_all_blocks");
}

GRADED_STREAM_TEST(MemoryPool, SameStreamReuseDoesNotWait, 2,
            "a block freed on a stream comes straight back on that stream, without waiting") {
    course::stream a;
    counting_upstream upstream(lesson04::cuda_malloc_upstream());
    lesson04::memory_pool pool(upstream);
    const std::size_t bytes = MiB;
    warm_up_kernels();

    void* p = pool.allocate(bytes, a);
    launch_slow_fill(a, ints(p, bytes), 1, busy_time);  // a keeps p busy for 50 ms
    // Busy before the pool is called (a tool that makes launches blocking
    // would leave it idle, and then waiting cannot be told apart)...
    const bool busy_before = busy(a);
    pool.deallocate(p, bytes, a);
    void* q = pool.allocate(bytes, a);
    // ... and still busy after: the pool did not wait for the kernel.
    const bool busy_after = busy(a);

    launch_fill(a, ints(q, bytes), 2);  // queued after the slow kernel: stream order
    a.synchronize();

    if (!observe("the freed block came back", q == p))
        ADD_FAILURE() << "the 1 MiB block freed on stream a should come straight back to the next 1 MiB "
                         "allocation on stream a: the stream runs its work in order, so the new user "
                         "starts only after the old one is done";
    if (observe("upstream allocations", upstream.allocations()) != 1u)
        ADD_FAILURE() << "the second allocation went to the upstream (cudaMalloc)";
    // Observed here, not where they are measured: nothing slows the calls in between.
    const bool was_busy = observe("busy before the pool was called", busy_before);
    const bool still_busy = observe("busy after the pool was called", busy_after);
    if (was_busy && !still_busy)
        ADD_FAILURE() << "allocate returned only after the stream's 50 ms kernel had finished: the "
                         "pool waited (cudaStreamSynchronize, cudaEventSynchronize, cudaFree, ...). "
                         "Reuse on the same stream needs no wait at all; that is what makes a pool fast";
    const auto values = copy_to_host(q, bytes / sizeof(int));
    const auto wrong =
        observe("elements not 2", std::count_if(values.begin(), values.end(), [](int v) { return v != 2; }));
    if (wrong != 0)
        ADD_FAILURE() << wrong << " of " << values.size() << " elements are not the 2 written last";
    pool.deallocate(q, bytes, a);
}

GRADED_STREAM_TEST(MemoryPool, StreamSafety, 3,
            "a block freed on stream A is not handed to stream B while A still uses it") {
    course::stream a, b;
    counting_upstream upstream(lesson04::cuda_malloc_upstream());
    lesson04::memory_pool pool(upstream);
    const std::size_t bytes = MiB;
    warm_up_kernels();

    // Stream a: a kernel waits 50 ms and then writes 1 into its block. The
    // host frees the block at once: the kernel has not even started writing.
    void* p = pool.allocate(bytes, a);
    launch_slow_fill(a, ints(p, bytes), 1, busy_time);
    pool.deallocate(p, bytes, a);

    // Stream b: a quick kernel writes 2 into a block of the same size.
    void* q = pool.allocate(bytes, b);
    launch_fill(b, ints(q, bytes), 2);
    b.synchronize();
    a.synchronize();

    // b's block must hold b's 2s, whichever block it was.
    const auto values = copy_to_host(q, bytes / sizeof(int));
    const auto ones = observe("elements 1", std::count(values.begin(), values.end(), 1));
    const auto wrong =
        observe("elements not 2", std::count_if(values.begin(), values.end(), [](int v) { return v != 2; }));
    const bool same_block = observe("stream b got stream a's block", q == p);
    if (wrong != 0 && same_block && ones > 0) {
        ADD_FAILURE() << fmt::format(
            "stream b's data was overwritten: {} of {} elements hold the 1 that stream a's kernel wrote.\n"
            "The block freed on stream a was handed to stream b at once (same pointer), while a's kernel "
            "was still waiting to write into it; b's kernel wrote its 2s first and a's kernel wrote over "
            "them later.\n"
            "A block freed on one stream may go to another only after the work queued on the first: record "
            "an event on stream a and make stream b wait for it (cudaStreamWaitEvent), or give b another "
            "block.",
            ones, values.size());
    } else if (wrong != 0) {
        ADD_FAILURE() << fmt::format("{} of {} elements of stream b's block are not the 2 it wrote", wrong,
                                     values.size());
    }
    const std::size_t used = observe("used_bytes()", pool.used_bytes());
    if (used != bytes)
        ADD_FAILURE() << fmt::format("used_bytes() is {}, expected {}: one 1 MiB block is in use", used,
                                     bytes);
    pool.deallocate(q, bytes, b);
}

GRADED_PERF_TEST_SYSTEM(MemoryPoolPerf, HotPath, 2,
                 "reusing a 1 MiB block is >= 10x faster than cudaMalloc + cudaFree") {
    course::stream s;
    lesson04::memory_pool pool;
    const std::size_t bytes = MiB;
    pool.deallocate(pool.allocate(bytes, s), bytes, s);  // the block now waits in the pool

    // The pool's time is taken on the grader's clock, not this program's
    // (graders_clock.hpp): rounds of reuses, the best round per call.
    long made = 0;
    const course::testing::host_timing reuse = course::testing::time_on_graders_clock("a reuse", 2000, [&] {
        pool.deallocate(pool.allocate(bytes, s), bytes, s);
        ++made;
    });
    ASSERT_EQ(course::testing::observe("reuses made", made), reuse.calls)
        << "the program made another number of reuses than the grader asked for";
    const std::size_t used = course::testing::observe("used_bytes() after the reuses", pool.used_bytes());
    ASSERT_EQ(used, 0u) << fmt::format("used_bytes() is {} after as many deallocations as allocations", used);
    if (!reuse.ns_per_call) return;  // the judge decides, on the grader's clock

    // cudaMalloc + cudaFree, the yardstick, measured by the judge: the best of five rounds of 40.
    double cuda_ns = std::numeric_limits<double>::infinity();
    for (int round = 0; round < 5; ++round) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 40; ++i) {
            void* p = nullptr;
            CUDA_CHECK(cudaMalloc(&p, bytes));
            CUDA_CHECK(cudaFree(p));
        }
        cuda_ns = std::min(cuda_ns, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / 40);
    }
    const double pool_ns = *reuse.ns_per_call;
    RecordProperty("pool_ns_per_pair", std::to_string(pool_ns));
    RecordProperty("cuda_malloc_ns_per_pair", std::to_string(cuda_ns));
    course::testing::report_figure(fmt::format(
        "{:.0f} ns a reuse on the grader's clock, cudaMalloc + cudaFree {:.0f} ns: {:.3g}x as fast; 10x is needed",
        pool_ns, cuda_ns, cuda_ns / pool_ns));
    if (cuda_ns / pool_ns < 10.0)
        ADD_FAILURE() << fmt::format(
            "allocate + deallocate of a reused 1 MiB block took {:.0f} ns (timed by the grader, the best of {} "
            "rounds), cudaMalloc + cudaFree {:.0f} ns here: only {:.1f}x faster, 10x is needed.\n"
            "The hot path should be bookkeeping only: a lookup in the free list, no CUDA call, no upstream "
            "call, no waiting, and no memory allocated on the host for each call.",
            pool_ns, course::testing::host_timing_rounds, cuda_ns, cuda_ns / pool_ns);
}
