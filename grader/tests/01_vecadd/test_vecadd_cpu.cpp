// Graded tests for lesson01, part 2: vecadd_cpu, the CPU version that
// `grader bench lesson01 --vs-cpu` times the GPU against. They need no GPU.
//
// A float sum is computed the same way on the CPU as in the reference (one
// rounding of a[i] + b[i]), so every element must match exactly. c is
// allocated with a guard band after it, filled with NaN, so an element never
// written and a write past the end both show. What the code under test
// produced goes through observe(), so the judge (grader/TRUST.md) checks the
// recorded values, not the word of the program that ran them.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/cuda_error.hpp"
#include "course/random.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "vecadd_cpu.hpp"

namespace {

constexpr std::size_t guard = 64;

// Two random vectors of n elements, from this run's seed.
struct cpu_inputs {
    std::vector<float> a, b;
};
cpu_inputs random_inputs(std::size_t n) {
    const std::uint64_t seed = course::testing::run_seed();
    return {course::random_floats(n, seed + 1), course::random_floats(n, seed + 2)};
}

// Adds a and b with `threads` threads (0: one per core) and checks every
// element, the guard band after c, and the inputs.
void check_vecadd_cpu(const cpu_inputs& inputs, unsigned threads) {
    const std::vector<float>& a = inputs.a;
    const std::vector<float>& b = inputs.b;
    const std::size_t n = a.size();
    const std::string what = fmt::format("vecadd_cpu, n = {}, threads = {}", n, threads);
    std::vector<float> c(n + guard, std::nanf(""));
    std::vector<float> a_used = a, b_used = b;

    // The judge checks what the program under test recorded (observe), so
    // it does not run the reference's vecadd_cpu only to throw its c away.
    if (!course::testing::judging()) lesson01::vecadd_cpu(a_used, b_used, std::span<float>(c.data(), n), threads);
    c = course::testing::observe("c", std::move(c));
    const bool inputs_unchanged = course::testing::observe("inputs unchanged", a_used == a && b_used == b);

    std::size_t wrong = 0, first_wrong = n;
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = a[i] + b[i];
        if (c[i] != expected) {  // a NaN (never written) is never equal
            if (wrong++ == 0) first_wrong = i;
        }
    }
    if (wrong > 0) {
        const bool tail = first_wrong > 0 && wrong == n - first_wrong;
        ADD_FAILURE() << fmt::format(
            "{}: {} of {} elements wrong, the first at index {}: expected {}, got {}{}", what, wrong, n,
            first_wrong, a[first_wrong] + b[first_wrong], c[first_wrong],
            tail ? fmt::format("\nevery element from {} to the end is wrong: when n does not divide evenly by the "
                               "number of threads, some chunk must take the remainder",
                               first_wrong)
                 : "");
    }
    std::size_t past_end = 0;
    for (std::size_t i = n; i < n + guard; ++i) past_end += !std::isnan(c[i]);
    if (past_end > 0)
        ADD_FAILURE() << fmt::format("{}: wrote past the end of c: {} of the {} elements after it changed", what,
                                     past_end, guard);
    if (!inputs_unchanged) ADD_FAILURE() << what << ": changed its inputs a or b, which are read-only";
}

void check_vecadd_cpu(std::size_t n, unsigned threads) { check_vecadd_cpu(random_inputs(n), threads); }

}  // namespace

GRADED_HOST_TEST(VecAddCpu, Empty, 1, "CPU: empty input writes nothing") { check_vecadd_cpu(0, 0); }

GRADED_HOST_TEST(VecAddCpu, SmallOnOneThread, 1, "CPU: 1 and 1,000 elements") {
    check_vecadd_cpu(1, 0);
    check_vecadd_cpu(1000, 0);
}

GRADED_HOST_TEST(VecAddCpu, UnevenSplit, 2, "CPU: 1,000,003 elements over 7 threads (chunks do not divide evenly)") {
    check_vecadd_cpu(1'000'003, 7);
}

GRADED_HOST_TEST(VecAddCpu, EveryThreadCount, 1, "CPU: 2^20 + 5 elements over 1 to 16 threads, and one per core") {
    // The same inputs for every thread count: drawn once.
    const cpu_inputs inputs = random_inputs((std::size_t{1} << 20) + 5);
    for (unsigned threads : {1u, 2u, 3u, 4u, 5u, 8u, 16u, 0u}) check_vecadd_cpu(inputs, threads);
}

GRADED_HOST_TEST(VecAddCpu, ShortInputsAreRefused, 1, "CPU: inputs shorter than c throw std::invalid_argument") {
    std::vector<float> a(10, 1.0f), b(9, 2.0f), c(10, std::nanf(""));
    bool refused = false;
    try {
        lesson01::vecadd_cpu(a, b, c);
    } catch (const std::invalid_argument&) {
        refused = true;
    } catch (const course::not_implemented&) {
        throw;  // a part not started is reported as such, not as a wrong exception
    } catch (const std::exception& e) {
        ADD_FAILURE() << "vecadd_cpu with b shorter than c threw " << e.what()
                      << ", but it must throw std::invalid_argument";
        return;
    }
    refused = course::testing::observe("refused", refused);
    c = course::testing::observe("c after the call", std::move(c));
    if (!refused) ADD_FAILURE() << "vecadd_cpu with b (9 elements) shorter than c (10) returned without an error";
    for (float x : c)
        if (!std::isnan(x)) {
            ADD_FAILURE() << "vecadd_cpu wrote into c before refusing its inputs: check the sizes first";
            break;
        }
}
