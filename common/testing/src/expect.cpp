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

namespace {

// The mistakes that leave the elements from `prefix` on unwritten, and only
// those: each is named only when the data has exactly its pattern.
std::vector<std::string> causes_of_unwritten_end(std::size_t n, std::size_t threads, std::size_t prefix) {
    std::vector<std::string> causes;
    // A grid rounded down leaves out the last n % threads elements.
    if (prefix == n / threads * threads && prefix > 0)
        causes.push_back(fmt::format(
            "the last, partial block did not run ({} elements need {} blocks of {}: round the grid "
            "up, blocks = (n + threads - 1) / threads)",
            with_commas(n), blocks_for(n, threads), threads));
    // Every block storing into the first block's elements leaves one block's worth.
    if (prefix == threads)
        causes.push_back(
            "every block wrote the first block's elements (the index ignores blockIdx.x: use "
            "blockIdx.x * blockDim.x + threadIdx.x)");
    // A loop over packs of four (float4) with no code for the rest leaves the last n % 4.
    if (n - prefix == n % 4)
        causes.push_back(fmt::format(
            "a loop over packs of four elements (float4) left out the last n % 4 = {}, which "
            "need handling one by one",
            n % 4));
    return causes;
}

// "a" / "a; or b" / "a; b; or c"
std::string either(const std::vector<std::string>& causes) {
    std::string text;
    for (std::size_t i = 0; i < causes.size(); ++i) {
        if (i > 0) text += i + 1 == causes.size() ? "; or " : "; ";
        text += causes[i];
    }
    return text;
}

}  // namespace

std::string diagnose_1d(const comparison& c, const std::vector<float>& actual, launch_1d launch) {
    const std::size_t n = c.count;
    const std::size_t threads = launch.threads_per_block;
    if (c.ok() || threads == 0) return {};
    const std::size_t prefix = right_prefix(c);
    const bool rest_unwritten = unwritten_from(actual, prefix);

    if (c.nan == n) {
        std::string text =
            "no element was written. Mistakes that give this: no kernel ran (or its launch failed "
            "and was not checked), or no thread stored into c";
        if (n < 4)  // with fewer than four elements, a loop over packs of four writes nothing
            text += fmt::format(
                "; or a loop over packs of four elements (float4) left out the last n % 4, here all {}",
                n);
        return text;
    }
    if (rest_unwritten) {
        const std::vector<std::string> causes = causes_of_unwritten_end(n, threads, prefix);
        const std::string seen = fmt::format("only the first {} elements were written", with_commas(prefix));
        if (causes.size() == 1) return seen + ": " + causes.front();
        if (causes.size() > 1) return seen + ". Mistakes that leave exactly this: " + either(causes);
    }
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

std::string diagnose_known_wrong(const std::vector<float>& actual,
                                 const std::vector<known_wrong_result>& known, tolerance tol,
                                 const std::string& right_formula) {
    if (actual.empty()) return {};
    std::vector<const known_wrong_result*> fits;
    for (const known_wrong_result& k : known)
        if (compare(actual, k.values, tol, 0).ok()) fits.push_back(&k);
    if (fits.empty()) return {};
    if (fits.size() == 1)
        return fmt::format("every element equals {} instead of {}: {}", fits[0]->formula, right_formula,
                           fits[0]->likely_cause);
    std::string formulas = fits[0]->formula;
    for (std::size_t i = 1; i < fits.size(); ++i) formulas += " and " + fits[i]->formula;
    return fmt::format("every element equals {} (these inputs give them the same values) instead of {}",
                       formulas, right_formula);
}

void expect_matches(const guarded_output<float>& output, const std::vector<double>& expected,
                    tolerance tol, launch_1d launch, const std::vector<known_wrong_result>& known_wrong,
                    const std::string& right_formula) {
    const std::vector<float> actual = output.to_host();
    const comparison c = compare(actual, expected, tol);
    if (c.ok()) return;
    std::string message = describe_mismatch(c.examples.front());
    if (c.wrong > 1) message += "\n" + c.summary();
    std::string why = diagnose_known_wrong(actual, known_wrong, tol, right_formula);
    if (why.empty()) why = diagnose_1d(c, actual, launch);
    if (!why.empty()) message += "\n" + why;
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
    std::size_t first = input.host.size();
    // The judge takes the recorded index: the reference never changes its
    // inputs, so reading them back there would be 64 MiB for nothing at 2^24.
    if (!judging()) {
        const std::vector<float> now = input.device.to_host();
        // The whole input in one memcmp first: the usual answer, and fast.
        const bool same = now.size() == input.host.size() &&
                          std::memcmp(now.data(), input.host.data(), now.size() * sizeof(float)) == 0;
        first = same ? now.size() : 0;
        while (first < now.size() && std::memcmp(&now[first], &input.host[first], sizeof(float)) == 0)
            ++first;
    }
    first = observe("first changed input element", first);  // evidence: the judge decides
    if (first >= input.host.size()) return;
    ADD_FAILURE() << fmt::format(
        "input {} was modified (first at element {}): inputs are read-only, write only the output",
        input.name, with_commas(first));
}

}  // namespace course::testing
