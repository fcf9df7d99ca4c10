#pragma once
// Checks shared by the lesson04 tests: a pool's statistics against what they
// should be, with the usual reason when they are not.
//
// Everything these tests learn of the pool under test (its statistics, what
// its upstream saw, what it threw) passes through observe(): the grader's
// judge reruns the tests on those recorded values (course/testing/evidence.hpp).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "course/testing/evidence.hpp"
#include "memory_pool.cuh"
#include "test_upstream.hpp"

namespace lesson04_tests {

using course::testing::observe;

struct expected_stats {
    std::size_t used;
    std::size_t total;
    std::size_t n_free;
};

// What the pool says of itself: used_bytes(), total_bytes(), n_free_blocks().
struct pool_stats {
    std::size_t used;
    std::size_t total;
    std::size_t n_free;
};

inline pool_stats observed_stats(const lesson04::memory_pool& pool) {
    return observe("pool statistics",
                   pool_stats{pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()});
}

// What the counting upstream saw the pool do wrong, one message each.
inline std::vector<std::string> observed_upstream_errors(const counting_upstream& upstream) {
    std::string joined;  // one message a line: observe() records text, not lists of it
    for (const auto& error : upstream.errors()) joined += error + '\n';
    joined = observe("upstream errors", std::move(joined));
    std::vector<std::string> errors;
    for (std::size_t start = 0, end; (end = joined.find('\n', start)) != std::string::npos; start = end + 1)
        errors.push_back(joined.substr(start, end - start));
    return errors;
}

// The reason behind a wrong statistic, read from the numbers. Each hint
// names the field that is wrong; it names a cause only where the numbers
// single one out, and asks about the likely ones otherwise. `held` is what the
// pool holds from its upstream, which a right pool counts in total_bytes.
inline std::string explain_used(pool_stats got, expected_stats e) {
    if (got.used > std::numeric_limits<std::size_t>::max() / 2)  // a count below zero wraps around
        return fmt::format(
            "used_bytes() went below zero and wrapped around: {} bytes more were subtracted than "
            "added. A block subtracted twice (freed twice?) does this.",
            0 - got.used);
    if (got.used < e.used && got.used % lesson04::pool_granularity != 0)
        return "used_bytes counts the bytes asked for, not the blocks: sizes round up to a multiple "
               "of 512 (400 bytes take 512)";
    if (got.used > e.used)
        return fmt::format("used_bytes() is {} bytes too high: does deallocate subtract the block "
                           "it takes back?",
                           got.used - e.used);
    return fmt::format("used_bytes() is {} bytes too low: is a block subtracted twice, or one "
                       "handed out without being counted?",
                       e.used - got.used);
}

inline std::string explain_total(pool_stats got, expected_stats e, std::size_t held) {
    if (held != got.total && held == e.total)
        return fmt::format(
            "total_bytes() is {} but the pool holds {} bytes from its upstream: it still counts "
            "blocks it gave back. Subtract a block from total_bytes when it goes to the upstream.",
            got.total, held);
    if (held != got.total)
        return fmt::format(
            "total_bytes() is {} but the pool holds {} bytes from its upstream: every byte taken "
            "from the upstream and not given back must be counted, and nothing else",
            got.total, held);
    // total_bytes matches what the pool holds: the pool holds the wrong amount.
    if (got.total % lesson04::pool_granularity != 0)
        return "total_bytes() is not a multiple of 512: the blocks taken from the upstream were "
               "not rounded up";
    if (got.used == e.used && e.used > 0 && got.total + e.used == e.total)
        return "total_bytes() counts only the free blocks: it must include the blocks in use";
    if (e.n_free > 0 && got.n_free == 0 && got.total == got.used && got.used == e.used)
        return "the pool holds only the blocks in use and none of the freed ones: freed blocks "
               "went back to the upstream. deallocate should keep them in the pool for the next "
               "allocate (only free_all_blocks and the limit give them back)";
    if (got.total > e.total)
        return fmt::format(
            "the pool holds {} bytes more from its upstream than it should: was a new block taken "
            "where a free one of the same size could serve, or a free block kept that had to go "
            "back?",
            got.total - e.total);
    return fmt::format(
        "the pool holds {} bytes less from its upstream than it should: did a free block serve a "
        "request of another size, or a freed block go back to the upstream too early?",
        e.total - got.total);
}

inline std::string explain_stats(pool_stats got, expected_stats e, std::size_t held) {
    std::string why;
    if (got.used != e.used) why = explain_used(got, e);
    if (got.total != e.total) why += (why.empty() ? "" : "\n") + explain_total(got, e, held);
    return why;
}

// Checks the pool's statistics and that it holds from `upstream` exactly what
// total_bytes says. `after` names the step ("after freeing the 400-byte block").
// Failures are plain ADD_FAILUREs: the report shows the message, nothing else.
inline void expect_stats(const lesson04::memory_pool& pool, const counting_upstream& upstream,
                         expected_stats e, const std::string& after) {
    const pool_stats got = observed_stats(pool);
    const std::size_t held = observe("bytes held from the upstream", upstream.live_bytes());
    std::string wrong;
    if (got.used != e.used)
        wrong += fmt::format("\n  used_bytes()    {:>9}, expected {}", got.used, e.used);
    if (got.total != e.total)
        wrong += fmt::format("\n  total_bytes()   {:>9}, expected {}", got.total, e.total);
    if (got.n_free != e.n_free)
        wrong += fmt::format("\n  n_free_blocks() {:>9}, expected {}", got.n_free, e.n_free);
    if (!wrong.empty()) {
        const std::string why = explain_stats(got, e, held);
        ADD_FAILURE() << after << ":" << wrong << (why.empty() ? "" : "\n" + why);
        return;
    }
    const std::size_t free = observe("free_bytes()", pool.free_bytes());
    if (free != got.total - got.used)
        ADD_FAILURE() << fmt::format("{}: free_bytes() is {}, but total_bytes() - used_bytes() is {}", after,
                                     free, got.total - got.used);
    if (held != got.total)
        ADD_FAILURE() << fmt::format(
            "{}: the pool holds {} bytes from its upstream but total_bytes() says {}: every byte taken "
            "from the upstream and not given back must be counted",
            after, held, got.total);
    for (const auto& error : observed_upstream_errors(upstream)) ADD_FAILURE() << after << ": " << error;
}

// What a call that should throw `Expected` (or nothing) did: the stand-in for
// EXPECT_THROW and EXPECT_NO_THROW when the outcome is evidence.
struct thrown {
    enum kind_t : int { nothing, expected, other } kind = nothing;
    std::string what;  // the exception's message

    // EXPECT_THROW's "Actual: ..." line, for failure messages.
    std::string actual() const {
        switch (kind) {
            case nothing: return "Actual: it threw nothing.";
            case expected: return "Actual: it threw: " + what;
            default: return "Actual: it threw a different exception: " + what;
        }
    }
};

// Runs `call` and records what it threw: `Expected`, something else (caught
// too, as EXPECT_THROW does) or nothing. `name` says which call it was.
template <class Expected, class Call>
thrown observed_throw(std::string_view name, Call&& call) {
    thrown t;
    try {
        call();
    } catch (const Expected& e) {
        t = {thrown::expected, e.what()};
    } catch (const std::exception& e) {
        t = {thrown::other, e.what()};
    } catch (...) {
        t = {thrown::other, "an exception that is not a std::exception"};
    }
    t.kind = observe(name, t.kind);
    t.what = observe("message", std::move(t.what));
    return t;
}

}  // namespace lesson04_tests
