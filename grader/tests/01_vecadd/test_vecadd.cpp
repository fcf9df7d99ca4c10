// Graded tests for lesson01 (vector addition). Each GRADED_TEST carries its
// points and the title the report shows.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/testing/expect.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/stream_order.hpp"
#include "vecadd.cuh"

namespace {

using namespace course::testing;

// A float sum is correctly rounded: within half an ulp (2^-24) of the exact
// sum. 1e-6 leaves room for that and nothing more.
constexpr course::tolerance sum_tolerance{1e-6, 0.0};

// Adds two random vectors of n elements with the student's vecadd and checks
// everything a right answer implies: each element right, nothing written past
// the end, inputs untouched. a ends on unmapped memory and b starts on it
// (guard_paged.hpp), so a read past the end of a, or before the start of b,
// stops the kernel even when every sum comes out right.
void check_vecadd(std::size_t n, int threads) {
    SCOPED_TRACE(fmt::format("n = {}, {} threads per block", n, threads));
    const auto a = random_input(n, "a", guard_side::after);
    const auto b = random_input(n, "b", guard_side::before);
    guarded_output<float> c(n);

    lesson01::vecadd(a.view(), b.view(), c.view(), threads);
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = double{a.host[i]} + double{b.host[i]};
    expect_matches(c, expected, sum_tolerance, launch_1d{static_cast<unsigned>(threads)});
    expect_guard_untouched(c);
    expect_unchanged(a);
    expect_unchanged(b);
}

// vecadd on a non-blocking stream with work queued ahead of it
// (stream_order.hpp): it must read the inputs written on the stream just
// before the call, and be done when the stream is.
void check_vecadd_on_stream(course::device_span<float> a, course::device_span<float> b,
                            course::device_span<float> c, const std::string& name) {
    SCOPED_TRACE(fmt::format("n = {}, {}", c.size(), name));
    stream_order_check check;
    check.call_name = "vecadd";
    check.right_way = "launch with `<<<grid, block, 0, stream>>>`";
    check.inputs = {random_stream_input(a, name + " a"), random_stream_input(b, name + " b")};
    check.call = [=](cudaStream_t s) { lesson01::vecadd(a, b, c, 256, s); };
    check.output = c;
    check.expected = [](const std::vector<std::vector<float>>& v) {
        std::vector<double> sum(v[0].size());
        for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = double{v[0][i]} + double{v[1][i]};
        return sum;
    };
    check.tol = sum_tolerance;
    expect_honours_stream(check);
}

}  // namespace

GRADED_TEST(VecAdd, EmptyInput, 1, "empty input launches nothing and writes nothing") {
    check_vecadd(0, 256);
}

GRADED_TEST(VecAdd, SingleElement, 1, "single element") { check_vecadd(1, 256); }

GRADED_TEST(VecAdd, LessThanOneBlock, 1, "127 elements, 128 threads per block") {
    check_vecadd(127, 128);
}

GRADED_TEST(VecAdd, ExactlyOneBlock, 1, "128 elements, 128 threads per block") {
    check_vecadd(128, 128);
}

GRADED_TEST(VecAdd, PartialLastBlock, 2, "129 elements, 128 threads per block") {
    check_vecadd(129, 128);
}

GRADED_TEST(VecAdd, AroundBlockMultiples, 2, "1023, 1024 and 1025 elements, 256 threads per block") {
    for (std::size_t n : {1023, 1024, 1025}) check_vecadd(n, 256);
}

GRADED_TEST(VecAdd, EveryBlockSize, 2, "block sizes 32 to 1024 (1025 elements)") {
    for (int threads : {32, 64, 128, 256, 512, 1024}) check_vecadd(1025, threads);
}

GRADED_TEST(VecAdd, Large, 2, "2^24 + 11 elements") { check_vecadd((std::size_t{1} << 24) + 11, 256); }

GRADED_TEST(VecAdd, OffsetViews, 1, "inputs that start mid-allocation (1000 elements)") {
    // Views need not start where an allocation starts: here a and b begin one
    // element in, so their addresses are not multiples of 16 bytes.
    const std::size_t n = 1000;
    const auto a = random_input(n + 1, "a");
    const auto b = random_input(n + 1, "b");
    guarded_output<float> c(n);
    lesson01::vecadd(a.view().subspan(1, n), b.view().subspan(1, n), c.view(), 128);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = double{a.host[i + 1]} + double{b.host[i + 1]};
    expect_matches(c, expected, sum_tolerance, launch_1d{128});
    expect_guard_untouched(c);
}

GRADED_STREAM_TEST(VecAdd, HonoursStream, 1,
            "honours a non-blocking stream with work queued ahead (2^20 + 3 and 4,097 elements)") {
    const std::size_t n = (std::size_t{1} << 20) + 3;
    course::device_array<float> a(n), b(n), c(n);
    check_vecadd_on_stream(a.view(), b.view(), c.view(), "whole allocations");
    // Views one element in are off 16-byte boundaries: a vecadd with a float4
    // path ("Going further") takes its other launch for them.
    const std::size_t m = 4097;
    course::device_array<float> a1(m + 1), b1(m + 1), c1(m + 1);
    check_vecadd_on_stream(a1.view().subspan(1, m), b1.view().subspan(1, m), c1.view().subspan(1, m),
                           "views one element in");
}

GRADED_TEST(VecAdd, RejectsTooManyThreads, 1, "block size 2048 is reported as an error") {
    const auto a = random_input(4096, "a");
    const auto b = random_input(4096, "b");
    guarded_output<float> c(4096);
    expect_launch_refused([&] { lesson01::vecadd(a.view(), b.view(), c.view(), 2048); },
                          "vecadd with 2048 threads per block");
}

GRADED_PERF_TEST(VecAdd, Bandwidth, 2, "bandwidth >= 60% of this GPU's copy bandwidth") {
    // As large as fits comfortably, up to 2^27 elements, so the timing is
    // dominated by memory traffic, not launch overhead.
    const std::size_t n = elements_that_fit(std::size_t{1} << 27, 3, sizeof(float));
    course::device_array<float> a(n), b(n), c(n);
    course::testing::timed_calls work;
    work.name = "vecadd";
    work.fresh_inputs = [&](std::uint64_t seed, cudaStream_t s) {
        fill_fresh(a.view(), seed, s);
        fill_fresh(b.view(), seed + 101, s);
    };
    work.call = [&](cudaStream_t s) { lesson01::vecadd(a.view(), b.view(), c.view(), 256, s); };
    work.output = c.view();
    work.arrays = {a.view(), b.view(), c.view()};
    expect_bandwidth_share(
        work, 3.0 * n * sizeof(float),  // two reads, one write
        n * sizeof(float), 0.60,
        "A memory-bound kernel should move data nearly as fast as a copy. Common reasons it does "
        "not: the threads of a warp touch elements far apart (make consecutive threads touch "
        "consecutive elements), too few blocks to fill the GPU, or the work is not done by a "
        "kernel at all.");
}
