// Graded tests for lesson04's pinned host pool (memory_pool over
// cudaMallocHost) and for async_pool, the wrapper over cudaMallocAsync.
// What the tests learn of the pools is evidence (pool_checks.hpp).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "async_pool.cuh"
#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "memory_pool.cuh"
#include "pool_checks.hpp"
#include "test_kernels.hpp"
#include "test_upstream.hpp"

namespace {

using namespace lesson04_tests;
using namespace std::chrono_literals;
using course::testing::observe;

constexpr std::size_t MiB = 1024 * 1024;

// How long a kernel holds the stream in front of a queued copy: the host is
// done with everything it does after the launch long before the copy runs.
constexpr auto copy_delay = 100ms;

}  // namespace

GRADED_STREAM_TEST(PinnedPool, Walkthrough, 2, "a pinned host pool: 400 bytes use 512, host memory the GPU copies") {
    course::stream s;
    counting_upstream upstream(lesson04::pinned_host_upstream());
    lesson04::memory_pool pool(upstream);

    int* in = static_cast<int*>(pool.allocate(400, s));
    expect_stats(pool, upstream, {512, 512, 0}, "after allocating 400 bytes of pinned memory");
    cudaPointerAttributes attributes = {};
    CUDA_CHECK(cudaPointerGetAttributes(&attributes, in));
    if (observe("memory type", attributes.type) != cudaMemoryTypeHost)
        ADD_FAILURE()
            << "the pinned pool should hand out page-locked host memory, which it gets from its upstream";

    // Host memory: the host writes it directly; the copy engines read it.
    for (int i = 0; i < 100; ++i) in[i] = 7 * i + 1;
    int* out = static_cast<int*>(pool.allocate(400, s));
    expect_stats(pool, upstream, {1024, 1024, 0}, "after allocating a second 400-byte block");
    course::device_array<int> device(100);
    CUDA_CHECK(cudaMemcpyAsync(device.data(), in, 400, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(out, device.data(), 400, cudaMemcpyDeviceToHost, s));
    s.synchronize();
    const std::vector<int> back = observe("values back from the GPU", std::vector<int>(out, out + 100));
    if (back != std::vector<int>(in, in + 100))
        ADD_FAILURE() << "a round trip through the GPU did not bring the values back";

    pool.deallocate(in, 400, s);
    pool.deallocate(out, 400, s);
    expect_stats(pool, upstream, {0, 1024, 2}, "after freeing both pinned blocks");
    // A freed pinned block may wait until the stream has passed its free
    // (PinnedPool.ReuseWaitsForQueuedCopy); after this, it must come back.
    s.synchronize();
    void* again = pool.allocate(400, s);
    if (!observe("a freed block came back", again == in || again == out))
        ADD_FAILURE() << "a freed pinned block should be reused";
    pool.deallocate(again, 400, s);
    pool.free_all_blocks();
    expect_stats(pool, upstream, {0, 0, 0}, "after free_all_blocks");
}

GRADED_STREAM_TEST(PinnedPool, ReuseWaitsForQueuedCopy, 2,
            "a pinned block freed while a queued copy still reads it is not handed back to be overwritten") {
    course::stream s;
    counting_upstream upstream(lesson04::pinned_host_upstream());
    lesson04::memory_pool pool(upstream);
    // Well over 64 KiB, so the copy engine reads the pinned block when the
    // copy runs, not when it is queued.
    const std::size_t n = MiB / sizeof(int) + 11;
    const std::size_t bytes = n * sizeof(int);
    auto copied = [](std::size_t i) { return static_cast<int>(3 * i + 1); };    // in the block at the copy
    auto written_late = [](std::size_t i) { return -2 - static_cast<int>(i); };  // written after the free
    course::device_array<int> device(n);
    device.fill_bytes(0xFF);  // -1 everywhere: elements the copy did not write show
    course::device_array<int> gate(1);
    warm_up_kernels();        // also waits for the fill

    // The host fills a pinned block and queues a copy from it behind a kernel
    // that holds the stream for 100 ms, then frees the block at once (as a
    // staging buffer's owner does once the copy is queued).
    int* staged = static_cast<int*>(pool.allocate(bytes, s));
    for (std::size_t i = 0; i < n; ++i) staged[i] = copied(i);
    launch_slow_fill(s, gate.view(), 0, copy_delay);
    CUDA_CHECK(cudaMemcpyAsync(device.data(), staged, bytes, cudaMemcpyHostToDevice, s));
    pool.deallocate(staged, bytes, s);

    // The next block of that size on that stream: the host fills it at once.
    int* next = static_cast<int*>(pool.allocate(bytes, s));
    for (std::size_t i = 0; i < n; ++i) next[i] = written_late(i);
    s.synchronize();

    const std::vector<int> received = device.to_host();
    std::size_t not_copied = 0, late = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (received[i] != copied(i)) ++not_copied;
        if (received[i] == written_late(i)) ++late;
    }
    const std::size_t wrong = observe("elements not the values queued for the copy", not_copied);
    const std::size_t overwritten = observe("elements the host wrote after the free", late);
    const bool same_block = observe("allocate handed back the freed block", next == staged);
    if (wrong != 0 && same_block && overwritten > 0) {
        ADD_FAILURE() << fmt::format(
            "the copy queued before the free delivered what the host wrote after it: {} of {} elements.\n"
            "The pinned block freed on the stream came straight back from the next allocate on that "
            "stream (same pointer), and the host overwrote it while the copy, queued behind a 100 ms "
            "kernel, had not read it yet.\n"
            "Stream order protects device memory only: the host writes pinned host memory directly, outside "
            "stream order. When a pinned block is freed, record an event on its stream, and reuse the block "
            "only once that event has completed (cudaEventQuery returns cudaSuccess); until then, hand out "
            "another block.",
            overwritten, n);
    } else if (wrong != 0) {
        ADD_FAILURE() << fmt::format(
            "{} of {} elements the device received are not the values the pinned block held when the copy "
            "was queued",
            wrong, n);
    }
    pool.deallocate(next, bytes, s);
}

GRADED_STREAM_TEST(AsyncPool, AllocateAndFree, 2, "cudaMallocAsync pool: allocate on a stream, use, free") {
    course::stream s;
    lesson04::async_pool pool;
    if (observe("allocate(0) returned a block", pool.allocate(0, s) != nullptr))
        ADD_FAILURE() << "allocate(0) should return nullptr";

    const std::size_t bytes = MiB + 100;
    void* p = pool.allocate(bytes, s);
    ASSERT_TRUE(observe("allocate returned a block", p != nullptr))
        << "allocate(" << bytes << ") returned nullptr";
    const std::size_t used = observe("used_bytes() after allocate", pool.used_bytes());
    if (used < bytes)
        ADD_FAILURE() << fmt::format(
            "after allocating {} bytes the pool reports {} bytes in use: the memory did not come from this "
            "pool. cudaMallocAsync takes from the device's default pool; cudaMallocFromPoolAsync(&p, bytes, "
            "pool, stream) from ours",
            bytes, used);
    CUDA_CHECK(cudaMemsetAsync(p, 0x5A, bytes, s));
    std::vector<unsigned char> host(bytes);
    CUDA_CHECK(cudaMemcpyAsync(host.data(), p, bytes, cudaMemcpyDeviceToHost, s));
    pool.deallocate(p, bytes, s);
    s.synchronize();
    if (!observe("the memory held what was written",
                 std::all_of(host.begin(), host.end(), [](unsigned char c) { return c == 0x5A; })))
        ADD_FAILURE() << "the memory did not hold what was written into it";
    if (observe("used_bytes() after deallocate", pool.used_bytes()) != 0u)
        ADD_FAILURE() << "after deallocate and a synchronisation nothing should be in use: "
                         "deallocate should cudaFreeAsync the block on its stream";

    {
        course::device_array<int> array(1000, pool, s);  // the pool as a device_array's allocator
        if (observe("used_bytes() with the array", pool.used_bytes()) < 4000u)
            ADD_FAILURE() << "a device_array made with the pool should take its memory from it";
        launch_fill(s, array.view(), 3);
        std::vector<int> values(1000);
        CUDA_CHECK(cudaMemcpyAsync(values.data(), array.data(), 4000, cudaMemcpyDeviceToHost, s));
        s.synchronize();
        if (observe("the array's contents", std::move(values)) != std::vector<int>(1000, 3))
            ADD_FAILURE() << "a kernel's writes into the array did not come back";
    }
    s.synchronize();
    if (observe("used_bytes() after the array", pool.used_bytes()) != 0u)
        ADD_FAILURE() << "the array was destroyed, its memory should be back in the pool";
}

GRADED_STREAM_TEST(AsyncPool, ReleaseThreshold, 2,
            "cudaMallocAsync pool: the release threshold keeps or returns memory") {
    course::stream s;
    const std::size_t GiB = 1024 * MiB;
    const std::size_t bytes = 64 * MiB;
    lesson04::async_pool pool(GiB);
    if (observe("release_threshold()", pool.release_threshold()) != GiB)
        ADD_FAILURE() << "release_threshold() should read back the 1 GiB given to the constructor";

    void* p = pool.allocate(bytes, s);
    if (observe("reserved_bytes() with 64 MiB in use", pool.reserved_bytes()) < bytes)
        ADD_FAILURE() << "64 MiB allocated, but the pool reserves less than that";
    pool.deallocate(p, bytes, s);
    s.synchronize();
    const std::size_t kept = observe("reserved_bytes() after freeing", pool.reserved_bytes());
    if (kept < bytes)
        ADD_FAILURE() << fmt::format(
            "with a 1 GiB release threshold the pool should keep the freed 64 MiB after a synchronisation, "
            "but it holds {} bytes: is the threshold set on the pool (cudaMemPoolAttrReleaseThreshold)?",
            kept);

    pool.trim_to(0);
    if (observe("reserved_bytes() after trim_to(0)", pool.reserved_bytes()) >= bytes)
        ADD_FAILURE() << "trim_to(0) should give the unused 64 MiB back (cudaMemPoolTrimTo)";

    pool.set_release_threshold(0);
    if (observe("release_threshold()", pool.release_threshold()) != 0u)
        ADD_FAILURE() << "release_threshold() should read back 0 after set_release_threshold(0)";
    p = pool.allocate(bytes, s);
    pool.deallocate(p, bytes, s);
    s.synchronize();
    const std::size_t still = observe("reserved_bytes() at threshold 0", pool.reserved_bytes());
    if (still >= bytes)
        ADD_FAILURE() << fmt::format(
            "with release threshold 0 the pool should give freed memory back at the next synchronisation, "
            "but "
            "it still holds {} bytes",
            still);
}
