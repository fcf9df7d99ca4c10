// Graded tests for lesson04's memory_pool that need no GPU: the pool draws
// host memory from a counting upstream (test_upstream.hpp) and everything
// happens on one stream, so what is tested is the pool's bookkeeping: sizes,
// reuse, statistics, the limit, errors. What the tests learn of the pool is
// evidence (pool_checks.hpp): pointers stay in the test, and only what is
// checked of them (the same block or not) is observed.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <new>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "memory_pool.cuh"
#include "pool_checks.hpp"
#include "test_upstream.hpp"

namespace {

using namespace lesson04_tests;
using lesson04::memory_pool;
using lesson04::out_of_memory;
using course::testing::observe;

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;

std::size_t rounded(std::size_t bytes) { return (bytes + 511) / 512 * 512; }

}  // namespace

GRADED_HOST_TEST(MemoryPool, RoundsUpTo512, 1, "sizes round up to multiples of 512 bytes") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    std::size_t used = 0;
    for (std::size_t bytes : {1, 400, 511, 512, 513, 1000, 1024, 1025, 4097}) {
        void* p = pool.allocate(bytes, nullptr);
        used += rounded(bytes);
        ASSERT_TRUE(observe("allocate returned a block", p != nullptr))
            << "allocate(" << bytes << ") returned nullptr";
        const std::size_t asked = observe("upstream request", upstream.last_request());
        if (asked != rounded(bytes))
            ADD_FAILURE() << fmt::format(
                "allocate({}) asked the upstream for {} bytes, expected {}: round the size up to a multiple "
                "of 512 first, (bytes + 511) / 512 * 512, and ask for the whole block",
                bytes, asked, rounded(bytes));
        expect_stats(pool, upstream, {used, used, 0}, fmt::format("after allocate({})", bytes));
    }
}

GRADED_HOST_TEST(MemoryPool, ZeroBytes, 1, "a 0-byte request returns nullptr and takes nothing") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    if (observe("allocate(0) returned a block", pool.allocate(0, nullptr) != nullptr))
        ADD_FAILURE() << "allocate(0) should return nullptr (as CuPy does)";
    if (observe("upstream allocations", upstream.allocations()) != 0u)
        ADD_FAILURE() << "allocate(0) should not ask the upstream for anything";
    expect_stats(pool, upstream, {0, 0, 0}, "after allocate(0)");
    const thrown freed_null = observed_throw<std::invalid_argument>(
        "deallocate(nullptr, 0) threw", [&] { pool.deallocate(nullptr, 0, nullptr); });
    if (freed_null.kind != thrown::nothing)
        ADD_FAILURE() << "deallocate(nullptr, 0) should do nothing\n" << freed_null.actual();
    expect_stats(pool, upstream, {0, 0, 0}, "after deallocate(nullptr, 0)");
}

GRADED_HOST_TEST(MemoryPool, ReusesFreedBlock, 2, "a freed block is reused, not allocated again") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    void* p = pool.allocate(MiB, nullptr);
    pool.deallocate(p, MiB, nullptr);
    expect_stats(pool, upstream, {0, MiB, 1}, "after allocating and freeing 1 MiB");

    void* q = pool.allocate(MiB, nullptr);
    if (!observe("the freed block came back", q == p))
        ADD_FAILURE() << "allocating 1 MiB again should return the free 1 MiB block";
    if (observe("upstream allocations", upstream.allocations()) != 1u)
        ADD_FAILURE()
            << "the second 1 MiB allocation went to the upstream although a free 1 MiB block was waiting: "
               "look in the free list before asking the upstream";
    expect_stats(pool, upstream, {MiB, MiB, 0}, "after allocating 1 MiB again");

    // Any request that rounds to the same size fits the same block.
    pool.deallocate(q, MiB, nullptr);
    void* r = pool.allocate(MiB - 100, nullptr);
    if (!observe("the freed block came back", r == p))
        ADD_FAILURE() << "allocate(1 MiB - 100) rounds to 1 MiB and should reuse the free 1 MiB block";
    expect_stats(pool, upstream, {MiB, MiB, 0}, "after allocating 1 MiB - 100 bytes");
    pool.deallocate(r, MiB - 100, nullptr);
    if (observe("upstream allocations", upstream.allocations()) != 1u)
        ADD_FAILURE() << "every request here fits the first block: one upstream call";
}

GRADED_HOST_TEST(MemoryPool, FreeAllBlocks, 1,
                 "free_all_blocks returns free blocks and keeps blocks in use") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    void* a = pool.allocate(1000, nullptr);  // 1024
    void* b = pool.allocate(3000, nullptr);  // 3072
    void* c = pool.allocate(600, nullptr);   // 1024
    pool.deallocate(a, 1000, nullptr);
    pool.deallocate(b, 3000, nullptr);
    expect_stats(pool, upstream, {1024, 5120, 2}, "after freeing two of three blocks");

    pool.free_all_blocks();
    if (observe("upstream deallocations", upstream.deallocations()) != 2u)
        ADD_FAILURE() << "free_all_blocks should give both free blocks to the upstream";
    if (!observe("the block in use is still held", upstream.holds(c)))
        ADD_FAILURE() << "free_all_blocks gave back a block still in use";
    expect_stats(pool, upstream, {1024, 1024, 0}, "after free_all_blocks with one block in use");

    pool.deallocate(c, 600, nullptr);
    pool.free_all_blocks();
    expect_stats(pool, upstream, {0, 0, 0}, "after freeing the last block and free_all_blocks");
}

GRADED_HOST_TEST(MemoryPool, SizeClasses, 2, "mixed sizes: a free block serves only its own size") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    void* big = pool.allocate(1024, nullptr);
    pool.deallocate(big, 1024, nullptr);

    // 512 and 1536 do not round to 1024: the free block is not theirs.
    void* small = pool.allocate(512, nullptr);
    if (observe("allocate(512) got the 1024-byte block", small == big))
        ADD_FAILURE() << "allocate(512) returned the free 1024-byte block: a block serves only requests "
                         "of its own size (else used_bytes would count 1024 for 512, and the big "
                         "block would be wasted)";
    void* larger = pool.allocate(1536, nullptr);
    if (observe("allocate(1536) got the 1024-byte block", larger == big))
        ADD_FAILURE() << "allocate(1536) returned the free 1024-byte block, which is too small";
    expect_stats(pool, upstream, {2048, 3072, 1}, "after 1024 freed, then 512 and 1536 allocated");

    void* same = pool.allocate(1000, nullptr);
    if (!observe("allocate(1000) got the 1024-byte block", same == big))
        ADD_FAILURE() << "allocate(1000) rounds to 1024 and should reuse the free 1024-byte block";
    expect_stats(pool, upstream, {3072, 3072, 0}, "after allocate(1000) reused the 1024-byte block");
    for (auto [p, n] : {std::pair{small, 512}, {larger, 1536}, {same, 1000}})
        pool.deallocate(p, static_cast<std::size_t>(n), nullptr);

    // Fragmentation: twenty sizes, all freed, make twenty free blocks; asked
    // for again in the other order, every one comes back from the pool.
    counting_upstream upstream2;
    memory_pool pool2(upstream2);
    std::vector<std::pair<void*, std::size_t>> blocks;
    std::size_t total = 0;
    for (std::size_t i = 1; i <= 20; ++i) {
        const std::size_t bytes = i * 700;  // 1024, 1536, 2560, ...: twenty different rounded sizes
        blocks.emplace_back(pool2.allocate(bytes, nullptr), bytes);
        total += rounded(bytes);
    }
    for (auto& [p, bytes] : blocks) pool2.deallocate(p, bytes, nullptr);
    expect_stats(pool2, upstream2, {0, total, 20}, "after freeing twenty blocks of different sizes");
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
        void* p = pool2.allocate(it->second, nullptr);
        if (!observe("its own block came back", p == it->first))
            ADD_FAILURE() << fmt::format("allocate({}) should get back its own free block", it->second);
    }
    if (observe("upstream allocations", upstream2.allocations()) != 20u)
        ADD_FAILURE() << "every size had a free block: no upstream call was needed";
    expect_stats(pool2, upstream2, {total, total, 0}, "after allocating the twenty sizes again");
    for (auto& [p, bytes] : blocks) pool2.deallocate(p, bytes, nullptr);
}

GRADED_HOST_TEST(MemoryPool, Limit, 2,
                 "an allocation past the limit throws out_of_memory and leaks nothing") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    pool.set_limit(2048);
    EXPECT_EQ(observe("limit()", pool.limit()), 2048u);
    void* a = pool.allocate(1024, nullptr);
    void* b = pool.allocate(1000, nullptr);  // 1024: the pool is full
    const std::size_t calls = upstream.allocations();
    bool refused = false;
    std::string message;
    try {
        pool.allocate(1, nullptr);
    } catch (const out_of_memory& e) {  // anything else ends the test, as before
        refused = true;
        message = e.what();
    }
    if (!observe("allocate(1) past the limit threw out_of_memory", refused))
        ADD_FAILURE() << "allocate(1) with 2048 of 2048 bytes in use returned normally: it needs 512 more "
                         "bytes, past the limit, so it must throw lesson04::out_of_memory";
    else if (observe("its message", message).empty())
        ADD_FAILURE() << "out_of_memory should say what happened";
    if (observe("upstream calls past the limit", upstream.allocations() - calls) != 0)
        ADD_FAILURE() << "the pool asked the upstream for memory past its limit";
    expect_stats(pool, upstream, {2048, 2048, 0}, "after an allocation refused by the limit");

    // 1024 in use, 1024 free: 1536 more does not fit even after the free block goes back.
    pool.deallocate(a, 1024, nullptr);
    const thrown too_big =
        observed_throw<out_of_memory>("allocate(1536) threw", [&] { pool.allocate(1536, nullptr); });
    if (too_big.kind != thrown::expected)
        ADD_FAILURE() << "1024 bytes in use + 1536 asked for > 2048: must throw out_of_memory\n"
                      << too_big.actual();
    expect_stats(pool, upstream, {1024, 1024, 0},
                 "after allocate(1536) was refused (the free block goes back to the upstream first)");
    static_assert(std::is_base_of_v<std::bad_alloc, out_of_memory>);

    // Removing the limit lets it grow again.
    pool.set_limit(0);
    void* c = pool.allocate(1536, nullptr);
    expect_stats(pool, upstream, {2560, 2560, 0}, "after set_limit(0) and allocate(1536)");
    pool.deallocate(b, 1000, nullptr);
    pool.deallocate(c, 1536, nullptr);
}

GRADED_HOST_TEST(MemoryPool, LimitReleasesFreeBlocks, 2,
                 "fragmentation: at the limit, free blocks go back before giving up") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    pool.set_limit(64 * KiB);
    // 60 KiB of free blocks in odd sizes, none of them 32 KiB.
    std::vector<std::pair<void*, std::size_t>> blocks;
    for (std::size_t bytes : {512, 1536, 2560, 3584, 4608, 5632, 6656, 7680, 8704, 9728, 10240})
        blocks.emplace_back(pool.allocate(bytes, nullptr), bytes);
    for (auto& [p, bytes] : blocks) pool.deallocate(p, bytes, nullptr);
    expect_stats(pool, upstream, {0, 60 * KiB, 11}, "after freeing 60 KiB of blocks in eleven sizes");

    void* p = nullptr;
    bool out_of_memory_thrown = false;
    try {
        p = pool.allocate(32 * KiB, nullptr);
    } catch (std::bad_alloc const&) {
        out_of_memory_thrown = true;
    }
    if (observe("allocate(32 KiB) threw out of memory", out_of_memory_thrown)) {
        // What the pool holds now tells whether it gave the free blocks back.
        const std::size_t held = observe("bytes held after the refusal", upstream.live_bytes());
        const std::size_t total = observed_stats(pool).total;
        if (held < 60 * KiB)
            ADD_FAILURE() << fmt::format(
                "allocate(32 KiB) with a 64 KiB limit and nothing in use threw out of memory, although "
                "the pool gave free blocks back to the upstream (it holds {} bytes from it now): "
                "total_bytes() still says {}, so the limit check counted blocks that were gone. "
                "Subtract a block from total_bytes when it goes back.",
                held, total);
        else
            ADD_FAILURE() << "allocate(32 KiB) with a 64 KiB limit and nothing in use threw out of memory: the "
                             "pool held 60 KiB of free blocks of other sizes. Give the free blocks back to the "
                             "upstream (as free_all_blocks does) and try again before throwing";
        return;
    }
    EXPECT_TRUE(observe("allocate(32 KiB) returned a block", p != nullptr))
        << "allocate(32 KiB) returned nullptr";
    expect_stats(pool, upstream, {32 * KiB, 32 * KiB, 0},
                 "after allocate(32 KiB) made room by giving back the free blocks");
    pool.deallocate(p, 32 * KiB, nullptr);
}

GRADED_HOST_TEST(MemoryPool, UpstreamOutOfMemory, 1, "the upstream running out: retry, then out_of_memory") {
    counting_upstream upstream(4096);  // the upstream has 4 KiB in all
    memory_pool pool(upstream);
    void* a = pool.allocate(2048, nullptr);
    pool.deallocate(a, 2048, nullptr);

    // 2048 free + 3072 > 4096: the upstream refuses until the pool gives back its free block.
    void* b = nullptr;
    bool out_of_memory_thrown = false;
    try {
        b = pool.allocate(3072, nullptr);
    } catch (std::bad_alloc const&) {
        out_of_memory_thrown = true;
    }
    if (observe("allocate(3072) threw out of memory", out_of_memory_thrown)) {
        ADD_FAILURE() << "allocate(3072) failed when the upstream ran out, though the pool held a free "
                         "2048-byte block: when the upstream throws std::bad_alloc, give the free blocks "
                         "back and try once more";
        return;
    }
    expect_stats(pool, upstream, {3072, 3072, 0}, "after allocate(3072) freed room in the upstream");

    const thrown no_room =
        observed_throw<out_of_memory>("allocate(2048) threw", [&] { pool.allocate(2048, nullptr); });
    if (no_room.kind != thrown::expected)
        ADD_FAILURE() << "the upstream has no room for 2048 more bytes and the pool has nothing to give "
                         "back: the std::bad_alloc of the upstream should come out as lesson04::out_of_memory\n"
                      << no_room.actual();
    expect_stats(pool, upstream, {3072, 3072, 0}, "after a request the upstream could not meet");

    // A size that cannot be rounded up without overflowing is out of memory,
    // not a block of 0 bytes.
    for (std::size_t huge : {SIZE_MAX, SIZE_MAX - 100}) {
        void* p = nullptr;
        bool out_of_memory_thrown = false;
        try {
            p = pool.allocate(huge, nullptr);
        } catch (std::bad_alloc const&) {
            out_of_memory_thrown = true;
        }
        if (!observe("the impossible request threw out of memory", out_of_memory_thrown))
            ADD_FAILURE() << fmt::format(
                "allocate({}) returned {}: rounding it up overflowed (to 0?). Check that bytes + 511 "
                "does not overflow before rounding, and throw out_of_memory",
                huge, observe("the pointer it returned", p));  // only printed, never used
    }
    expect_stats(pool, upstream, {3072, 3072, 0}, "after two impossible requests");
    pool.deallocate(b, 3072, nullptr);
}

GRADED_HOST_TEST(MemoryPool, BadDeallocate, 1, "foreign pointers, double frees and wrong sizes are refused") {
    counting_upstream upstream;
    memory_pool pool(upstream);
    void* p = pool.allocate(1000, nullptr);
    int not_from_the_pool = 0;
    const thrown foreign = observed_throw<std::invalid_argument>(
        "deallocate of a foreign pointer threw", [&] { pool.deallocate(&not_from_the_pool, 4, nullptr); });
    if (foreign.kind != thrown::expected)
        ADD_FAILURE() << "deallocate of a pointer the pool never handed out must throw "
                         "std::invalid_argument\n"
                      << foreign.actual();
    const thrown wrong_size = observed_throw<std::invalid_argument>(
        "deallocate with a wrong size threw", [&] { pool.deallocate(p, 100, nullptr); });
    if (wrong_size.kind != thrown::expected)
        ADD_FAILURE() << "deallocate(p, 100) of a block allocated with 1000 bytes (1024) must throw "
                         "std::invalid_argument: 100 rounds to 512, not 1024\n"
                      << wrong_size.actual();
    expect_stats(pool, upstream, {1024, 1024, 0}, "after two refused deallocations");

    const thrown freed = observed_throw<std::invalid_argument>("deallocate(p, 1000) threw",
                                                               [&] { pool.deallocate(p, 1000, nullptr); });
    if (freed.kind != thrown::nothing)
        ADD_FAILURE() << "deallocate(p, 1000) of a block allocated with 1000 bytes should succeed\n"
                      << freed.actual();
    const thrown twice = observed_throw<std::invalid_argument>("deallocate(p, 1000) again threw",
                                                               [&] { pool.deallocate(p, 1000, nullptr); });
    if (twice.kind != thrown::expected)
        ADD_FAILURE() << "freeing the same block twice must throw std::invalid_argument: otherwise the free "
                         "list holds it twice and two later allocations share one block\n"
                      << twice.actual();
    expect_stats(pool, upstream, {0, 1024, 1}, "after a double free was refused");
}

GRADED_HOST_TEST(MemoryPool, DestructorReturnsEverything, 1, "a destroyed pool gives back every block") {
    counting_upstream upstream;
    {
        memory_pool pool(upstream);
        void* in_use = pool.allocate(1024, nullptr);
        void* freed = pool.allocate(4096, nullptr);
        pool.deallocate(freed, 4096, nullptr);
        (void)in_use;
    }
    const std::size_t blocks = observe("blocks left in the upstream", upstream.live_blocks());
    const std::size_t bytes = observe("bytes left in the upstream", upstream.live_bytes());
    if (blocks != 0u)
        ADD_FAILURE() << fmt::format(
            "the pool was destroyed but {} block(s) ({} bytes) were never given back to the upstream: the "
            "destructor must return every block, free or in use",
            blocks, bytes);
    for (const auto& error : observed_upstream_errors(upstream)) ADD_FAILURE() << error;
}

GRADED_HOST_TEST(MemoryPool, RandomCyclesMatchModel, 3,
                 "statistics after 6000 random allocations and frees match a model") {
    // The model: the free blocks are a count per size; a request takes a
    // free block of its size, else a new one within the limit, giving back
    // every free block first when the limit is in the way.
    struct model {
        std::map<std::size_t, std::size_t> free;  // size -> number of free blocks
        std::size_t used = 0, total = 0, n_free = 0, limit = 0;
        std::size_t upstream_calls = 0;
        enum outcome { reused, grew, refused };
        outcome allocate(std::size_t size) {
            if (free[size] > 0) {
                --free[size];
                --n_free;
                used += size;
                return reused;
            }
            if (limit && total + size > limit) {
                total = used;  // every free block goes back
                free.clear();
                n_free = 0;
                if (total + size > limit) return refused;
            }
            total += size;
            used += size;
            ++upstream_calls;
            return grew;
        }
        void deallocate(std::size_t size) {
            ++free[size];
            ++n_free;
            used -= size;
        }
    } m;

    counting_upstream upstream;
    memory_pool pool(upstream);
    std::mt19937_64 rng(course::testing::seed());
    const std::size_t common[] = {400, 512, 1000, 4096, 65536};
    std::vector<std::pair<void*, std::size_t>> live;
    std::set<void*> live_set;

    for (int step = 0; step < 6000; ++step) {
        if (step == 2000) {  // a limit in the way from here on
            pool.set_limit(256 * KiB);
            m.limit = 256 * KiB;
        }
        if (step == 4000) {
            pool.free_all_blocks();
            m.total = m.used;
            m.free.clear();
            m.n_free = 0;
        }
        std::string op;
        const bool do_allocate = live.empty() || rng() % 100 < 55;
        if (do_allocate) {
            const std::size_t bytes = rng() % 2 ? common[rng() % 5] : 1 + rng() % 70000;
            op = fmt::format("allocate({})", bytes);
            const auto outcome = m.allocate(rounded(bytes));
            void* p = nullptr;
            enum allocate_result : int { returned_nullptr, returned_block, threw_out_of_memory };
            allocate_result result = returned_nullptr;
            try {
                p = pool.allocate(bytes, nullptr);
                if (p) result = returned_block;
            } catch (const out_of_memory&) {
                result = threw_out_of_memory;
            }
            result = observe("allocate", result);  // the student's outcome steers the steps that follow
            if (result == threw_out_of_memory) {
                if (outcome != model::refused) {
                    ADD_FAILURE() << fmt::format(
                        "step {}: {} threw out_of_memory, but {} ({} bytes in use, limit {}; rerun with "
                        "--seed={})",
                        step, op,
                        outcome == model::reused
                            ? "a free block of its size was waiting: reusing it does not grow the pool"
                            : "it fits once the free blocks go back to the upstream",
                        m.used, m.limit, course::testing::run_seed());
                    return;
                }
            }
            if (result == returned_block) {
                if (outcome == model::refused) {
                    ADD_FAILURE() << fmt::format("step {}: {} succeeded past the limit of {} bytes", step, op,
                                                 m.limit);
                    return;
                }
                if (!observe("the block was not in use", live_set.insert(p).second)) {
                    ADD_FAILURE() << fmt::format(
                        "step {}: {} returned {}, a block that is already in use: "
                        "two owners now share it",
                        step, op, p);
                    return;
                }
                live.emplace_back(p, bytes);
            }
        } else {
            const std::size_t i = rng() % live.size();
            const auto [p, bytes] = live[i];
            live[i] = live.back();
            live.pop_back();
            live_set.erase(p);
            op = fmt::format("deallocate({} bytes)", bytes);
            pool.deallocate(p, bytes, nullptr);
            m.deallocate(rounded(bytes));
        }
        struct statistics {
            std::size_t used, total, n_free, upstream_calls, held;
        };
        const statistics got = observe("statistics", statistics{pool.used_bytes(), pool.total_bytes(),
                                                                pool.n_free_blocks(), upstream.allocations(),
                                                                upstream.live_bytes()});
        if (got.used != m.used || got.total != m.total || got.n_free != m.n_free ||
            got.upstream_calls != m.upstream_calls || got.held != m.total) {
            ADD_FAILURE() << fmt::format(
                "step {} ({}; rerun with --seed={}):\n"
                "  used_bytes()     {:>9}, expected {}\n"
                "  total_bytes()    {:>9}, expected {}\n"
                "  n_free_blocks()  {:>9}, expected {}\n"
                "  upstream calls   {:>9}, expected {}\n"
                "  held from the upstream: {} bytes\n"
                "A free block serves only a request of its own rounded size; a new block is taken from the "
                "upstream only when none is free; at the limit, every free block goes back first.",
                step, op, course::testing::run_seed(), got.used, m.used, got.total, m.total, got.n_free,
                m.n_free, got.upstream_calls, m.upstream_calls, got.held);
            return;
        }
    }
    for (auto& [p, bytes] : live) {
        pool.deallocate(p, bytes, nullptr);
        m.deallocate(rounded(bytes));
    }
    expect_stats(pool, upstream, {0, m.total, m.n_free}, "after freeing everything at the end");
    for (const auto& error : observed_upstream_errors(upstream)) ADD_FAILURE() << error;
}
