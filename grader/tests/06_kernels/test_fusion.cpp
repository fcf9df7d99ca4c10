// Graded tests for lesson06, part 4: fusion. Each GRADED_TEST carries its
// points and the title the report shows.
//
// The fused update must compute what the three separate kernels compute, and
// do it in one kernel. "One kernel" is checked honestly: the call is captured
// into a CUDA graph on a stream (nothing runs) and the graph's kernel nodes
// are counted.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "fusion.cuh"
#include "kernels_check.hpp"

namespace {

using namespace lesson06::testing;
using course::testing::observe;

constexpr float a = 1.5f;

// exp(a sin(x) + cos(y)) in float, against float64: sin and cos err by a few
// units of roundoff u (CUDA documents 2 ulp for sinf, cosf and expf), the
// products and the sum round once each, and exp turns an absolute error e of
// its argument into a relative error e of its result. So the result is within
// relative 8 u (|a sin x| + |cos y| + 1) of the reference: the terms of the
// argument, each a few roundings off, plus exp's own.
expectation reference(const std::vector<float>& x, const std::vector<float>& y) {
    const std::size_t n{x.size()};
    const double u = unit_roundoff<float>();
    expectation e{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        const double s = a * std::sin(double{x[i]}), c = std::cos(double{y[i]});
        e.value[i] = std::exp(s + c);
        e.allowed[i] = 8 * u * (std::fabs(s) + std::fabs(c) + 1) * e.value[i];
    }
    return e;
}

// Runs fused_update (or unfused_update) on x[offset, offset + n) and
// y[offset, offset + n) and checks the new y.
void check_update(bool fused, std::size_t n, std::size_t offset) {
    const std::string what = fmt::format("{}_update, n = {}, views starting at element {}",
                                         fused ? "fused" : "unfused", course::with_commas(n), offset);
    const auto x = uniform_input<float>(n + offset, "x", -3.0, 3.0);
    // y starts as random values and is updated in place: a copy of them lives
    // in an output (NaN before and after it, to catch stray writes).
    const auto y0 = uniform_input<float>(n, "y", -3.0, 3.0);
    output<float> y(n, offset);
    if (n > 0)
        CUDA_CHECK(cudaMemcpy(y.view().data(), y0.device.data(), n * sizeof(float), cudaMemcpyDeviceToDevice));
    course::device_array<float> scratch(n + 1);
    if (fused)
        lesson06::fused_update(a, x.view(offset, n), y.view());
    else
        lesson06::unfused_update(a, x.view(offset, n), y.view(), scratch.view().subspan(1, n));
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> x_used(x.host.begin() + static_cast<std::ptrdiff_t>(offset), x.host.end());
    expect_elements(y.result(), reference(x_used, y0.host), what, [](std::size_t) {
        return std::string("y = exp(a * sin(x) + cos(y)): the old y goes into cos, the new y is the "
                           "result. Did a kernel read y after an earlier one had overwritten it?");
    });
    y.expect_untouched_outside(what);
    expect_unchanged(x);
}

}  // namespace

GRADED_TEST(Fusion, UnfusedMatchesReference, 1,
            "unfused_update, three kernels: 1, 1025 and 2^20 + 3 elements") {
    for (std::size_t n : {1, 1025, (1 << 20) + 3}) check_update(false, n, 0);
}

GRADED_TEST(Fusion, FusedMatchesUnfused, 2,
            "fused_update gives what the three kernels give: 0, 1, 1025, 2^20 + 3 elements, views off 16-byte boundaries") {
    for (std::size_t n : {0, 1, 1025, (1 << 20) + 3}) check_update(true, n, 0);
    check_update(true, 1001, 1);

    // The fused and the unfused results side by side: both are a few roundings
    // from the exact value, so they are within twice the reference's bound of
    // each other.
    const std::size_t n = 100003;
    const auto x = uniform_input<float>(n, "x", -3.0, 3.0);
    const auto y0 = uniform_input<float>(n, "y", -3.0, 3.0);
    course::device_array<float> fused(n), unfused(n), scratch(n);
    fused.copy_from(y0.view());
    unfused.copy_from(y0.view());
    lesson06::fused_update(a, x.view(), fused.view());
    lesson06::unfused_update(a, x.view(), unfused.view(), scratch.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> from_unfused = observe("unfused_update result", unfused.to_host());
    ASSERT_EQ(from_unfused.size(), n) << "unfused_update's result, read back";
    expectation expected = reference(x.host, y0.host);
    for (std::size_t i = 0; i < n; ++i) {
        expected.value[i] = from_unfused[i];
        expected.allowed[i] *= 2;
    }
    expect_elements(observe("fused_update result", fused.to_host()), expected,
                    "fused_update against unfused_update, n = 100,003");
}

GRADED_TEST(Fusion, FusedIsOneKernel, 1, "fused_update launches one kernel (the unfused version three)") {
    const std::size_t n = 1 << 20;
    const auto x = uniform_input<float>(n, "x");
    course::device_array<float> y(n), scratch(n);
    y.fill_bytes(0);
    // Run each once first, outside the capture: the first launch of a kernel
    // loads its code, which is not something to capture.
    lesson06::fused_update(a, x.view(), y.view());
    lesson06::unfused_update(a, x.view(), y.view(), scratch.view());
    CUDA_CHECK(cudaDeviceSynchronize());

    const std::size_t fused = kernels_launched([&](cudaStream_t s) { lesson06::fused_update(a, x.view(), y.view(), s); });
    if (fused != 1)
        ADD_FAILURE() << fmt::format(
            "fused_update launched {} kernels on the stream it was given; fused means one kernel that "
            "reads x and y once and writes y once.{}",
            fused,
            fused == 0 ? " (None at all on that stream: is the stream argument passed to the launch?)" : "");
    const std::size_t unfused =
        kernels_launched([&](cudaStream_t s) { lesson06::unfused_update(a, x.view(), y.view(), scratch.view(), s); });
    if (unfused != 3)
        ADD_FAILURE() << fmt::format(
            "unfused_update launched {} kernels on the stream it was given; it is the comparison "
            "point, one kernel per operation: three.{}",
            unfused, unfused == 0 ? " (None at all on that stream: is the stream argument passed on?)" : "");
}
