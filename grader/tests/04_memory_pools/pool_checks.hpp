#pragma once
// Checks shared by the lesson04 tests: a pool's statistics against what they
// should be, with the usual reason when they are not.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "memory_pool.cuh"
#include "test_upstream.hpp"

namespace lesson04_tests {

struct expected_stats {
    std::size_t used;
    std::size_t total;
    std::size_t n_free;
};

// The usual reason behind a wrong statistic, from the pattern of the numbers.
inline std::string explain_stats(const lesson04::memory_pool& pool, expected_stats e) {
    const std::size_t used = pool.used_bytes(), total = pool.total_bytes();
    if (e.used > 0 && used > 0 && used < e.used && used % lesson04::pool_granularity != 0)
        return "used_bytes counts the bytes asked for, not the blocks: sizes round up to a multiple "
               "of 512 (400 bytes take 512)";
    if (e.n_free > 0 && pool.n_free_blocks() == 0 && total < e.total)
        return "freed blocks went back to the upstream: deallocate should keep them in the pool "
               "for the next allocate (only free_all_blocks and the limit give them back)";
    if (total < used) return "total_bytes must include the blocks in use, not only the free ones";
    return "";
}

// Checks the pool's statistics and that it holds from `upstream` exactly what
// total_bytes says. `after` names the step ("after freeing the 400-byte block").
// Failures are plain ADD_FAILUREs: the report shows the message, nothing else.
inline void expect_stats(const lesson04::memory_pool& pool, const counting_upstream& upstream,
                         expected_stats e, const std::string& after) {
    const std::size_t used = pool.used_bytes(), total = pool.total_bytes(), n_free = pool.n_free_blocks();
    std::string wrong;
    if (used != e.used) wrong += fmt::format("\n  used_bytes()    {:>9}, expected {}", used, e.used);
    if (total != e.total) wrong += fmt::format("\n  total_bytes()   {:>9}, expected {}", total, e.total);
    if (n_free != e.n_free) wrong += fmt::format("\n  n_free_blocks() {:>9}, expected {}", n_free, e.n_free);
    if (!wrong.empty()) {
        const std::string why = explain_stats(pool, e);
        ADD_FAILURE() << after << ":" << wrong << (why.empty() ? "" : "\n" + why);
        return;
    }
    if (pool.free_bytes() != total - used)
        ADD_FAILURE() << fmt::format("{}: free_bytes() is {}, but total_bytes() - used_bytes() is {}", after,
                                     pool.free_bytes(), total - used);
    if (upstream.live_bytes() != total)
        ADD_FAILURE() << fmt::format(
            "{}: the pool holds {} bytes from its upstream but total_bytes() says {}: every byte taken "
            "from the upstream and not given back must be counted",
            after, upstream.live_bytes(), total);
    for (const auto& error : upstream.errors()) ADD_FAILURE() << after << ": " << error;
}

}  // namespace lesson04_tests
