#include "course/testing/expect.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "course/launch.hpp"
#include "course/testing/evidence.hpp"

namespace course::testing {

namespace {
bool is_nan(float x) { return std::isnan(x); }

// Length of the leading run of elements that are right.
std::size_t right_prefix(const comparison& c) { return c.wrong ? c.first_wrong : c.count; }

// True when every element from `from` on is NaN (never written).
bool unwritten_from(const std::vector<float>& actual, std::size_t from) {
    for (std::size_t i = from; i < actual.size(); ++i)
        if (!is_nan(actual[i])) return false;
    return true;
}
}  // namespace

std::string describe_mismatch(const mismatch& m) {
    if (std::isnan(m.actual))
        return fmt::format("element {}: expected {:.6g}, got NaN (never written)", with_commas(m.index),
                           m.expected);
    return fmt::format("element {}: expected {:.6g}, got {:.6g}", with_commas(m.index), m.expected,
                       m.actual);
}

std::string diagnose_1d(const comparison& c, const std::vector<float>& actual, launch_1d launch) {
    const std::size_t n = c.count;
    const std::size_t threads = launch.threads_per_block;
    if (c.ok() || threads == 0) return {};
    const std::size_t prefix = right_prefix(c);
    const bool rest_unwritten = unwritten_from(actual, prefix);

    if (c.nan == n)
        return "no element was written: was the kernel launched, with at least one block, and "
               "does each thread store its sum into c?";
    if (rest_unwritten && prefix == threads && prefix == n / threads * threads)
        return fmt::format(
            "only the first {} elements were written: either the last, partial block did not run "
            "(round the grid up: blocks = (n + threads - 1) / threads), or every block wrote the "
            "same first elements (the index ignores blockIdx.x: use blockIdx.x * blockDim.x + "
            "threadIdx.x)",
            threads);
    if (rest_unwritten && prefix == n / threads * threads && prefix > 0)
        return fmt::format(
            "the last, partial block did not run: {} elements need {} blocks of {}, so round the "
            "grid up: blocks = (n + threads - 1) / threads",
            with_commas(n), blocks_for(n, threads), threads);
    if (rest_unwritten && prefix == threads)
        return "only the first block's elements were written: the index ignores blockIdx.x. A "
               "thread's global index is blockIdx.x * blockDim.x + threadIdx.x";
    if (rest_unwritten && prefix == blocks_for(n, threads) + threads - 1)
        return "the written elements stop where blockIdx.x + threadIdx.x does: multiply the block "
               "index by the block size, i = blockIdx.x * blockDim.x + threadIdx.x";
    if (rest_unwritten)
        return fmt::format("elements from {} on were never written: does the grid cover all {}?",
                           with_commas(prefix), with_commas(n));
    if (c.nan == 0)
        return "every element was written, but some values are wrong: check the arithmetic and "
               "that each thread reads and writes the same index";
    return fmt::format("{} elements were never written (still NaN) and {} hold wrong values",
                       with_commas(c.nan), with_commas(c.wrong - c.nan));
}

void expect_matches(const guarded_output<float>& output, const std::vector<double>& expected,
                    tolerance tol, launch_1d launch) {
    const std::vector<float> actual = output.to_host();
    const comparison c = compare(actual, expected, tol);
    if (c.ok()) return;
    std::string message = describe_mismatch(c.examples.front());
    if (c.wrong > 1) message += "\n" + c.summary();
    if (const std::string why = diagnose_1d(c, actual, launch); !why.empty()) message += "\n" + why;
    ADD_FAILURE() << message;
}

void expect_guard_untouched(const guarded_output<float>& output) {
    const std::vector<std::size_t> written = output.guard_writes();
    if (written.empty()) return;
    ADD_FAILURE() << fmt::format(
        "wrote past the end: {} element(s) after the last one were changed (the first at index {})\n"
        "threads whose index is not below the array's size must not store: guard the store with "
        "if (i < c.size())",
        written.size(), with_commas(output.size() + written.front()));
}

void expect_unchanged(const test_input<float>& input) {
    const std::vector<float> now = input.device.to_host();
    std::size_t first = 0;
    while (first < now.size() && std::memcmp(&now[first], &input.host[first], sizeof(float)) == 0)
        ++first;
    first = observe("first changed input element", first);  // evidence: the judge decides
    if (first >= input.host.size()) return;
    ADD_FAILURE() << fmt::format(
        "input {} was modified (first at element {}): inputs are read-only, write only the output",
        input.name, with_commas(first));
}

}  // namespace course::testing
