// The judge's check of a timed call's answer (result_check.hpp), tried on
// the host against the answers a shortcut would give. For each operation a
// timed test grades (elementwise: vecadd, doublify, SAXPY, multiply_add;
// reductions: sum, L2 norm; the matrix product), on inputs drawn as the
// timed calls' are (fresh_inputs.hpp):
// - float32 arithmetic, in the orders a right kernel may use, passes;
// - zeros, a constant, the answer from half the inputs, and the answer from
//   inputs rounded to TF32 or FP16 (10-bit mantissas, as tensor cores read
//   them) all fail.
// And the inputs themselves: each draw has its own distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "course/testing/fresh_inputs.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/result_check.hpp"

namespace {

using course::testing::fresh_value;
using course::testing::within_tolerance;
using values = std::vector<double>;

std::vector<float> fresh(std::uint64_t seed, std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = fresh_value(seed, i);
    return v;
}

// Rounded to a 10-bit mantissa, to nearest: what a tensor core reads of a
// float in TF32; FP16 also has 10 bits, and overflows above 65504.
float to_tf32(float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, 4);
    b = (b + 0x1000u) & 0xFFFFE000u;
    float r;
    std::memcpy(&r, &b, 4);
    return r;
}
float to_fp16(float x) {
    const float r = to_tf32(x);
    return std::fabs(r) > 65504.0f ? std::copysign(INFINITY, r) : r;
}
std::vector<float> rounded(std::vector<float> v, float (*round)(float)) {
    for (float& x : v) x = round(x);
    return v;
}
std::vector<float> magnitudes(std::vector<float> v) {
    for (float& x : v) x = std::fabs(x);
    return v;
}

// Whether every value of `got` passes the check against `expected`.
bool passes(const values& got, const values& expected, const values& scale, double tolerance) {
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!within_tolerance(got[i], expected[i], scale[i], tolerance)) return false;
    return true;
}

// An operation as the judge checks it: `exact` is the answer in double on
// the given inputs (the reference's answer, and on magnitudes its scale).
struct checked_operation {
    std::string name;
    std::vector<std::vector<float>> inputs;
    std::function<values(const std::vector<std::vector<float>>&)> exact;
    double tolerance;
};

// The shortcuts every check must refuse, given the answer from half the
// inputs: zeros, a constant (the answer to other inputs, as a program could
// keep or predict it), the half, and the answer to TF32 and FP16 inputs.
void expect_shortcuts_fail(const checked_operation& op, const values& half_inputs_answer) {
    const values expected = op.exact(op.inputs);
    std::vector<std::vector<float>> absolute;
    for (const auto& in : op.inputs) absolute.push_back(magnitudes(in));
    const values scale = op.exact(absolute);

    EXPECT_FALSE(passes(values(expected.size(), 0.0), expected, scale, op.tolerance)) << op.name << ": zeros";
    std::vector<std::vector<float>> other;
    for (std::size_t k = 0; k < op.inputs.size(); ++k) other.push_back(fresh(999'983 + k, op.inputs[k].size()));
    double constant = 0;
    for (const double e : op.exact(other)) constant += e / static_cast<double>(expected.size());
    EXPECT_FALSE(passes(values(expected.size(), constant), expected, scale, op.tolerance)) << op.name << ": a constant";
    EXPECT_FALSE(passes(half_inputs_answer, expected, scale, op.tolerance)) << op.name << ": half the inputs";
    for (const auto& [round, which] : {std::pair{&to_tf32, "TF32"}, std::pair{&to_fp16, "FP16"}}) {
        std::vector<std::vector<float>> low;
        for (const auto& in : op.inputs) low.push_back(rounded(in, round));
        EXPECT_FALSE(passes(op.exact(low), expected, scale, op.tolerance)) << op.name << ": " << which << " inputs";
    }
}

void expect_float32_passes(const checked_operation& op, const values& float32_answer, const char* how) {
    const values expected = op.exact(op.inputs);
    std::vector<std::vector<float>> absolute;
    for (const auto& in : op.inputs) absolute.push_back(magnitudes(in));
    EXPECT_TRUE(passes(float32_answer, expected, op.exact(absolute), op.tolerance)) << op.name << ": float32, " << how;
}

constexpr std::size_t elementwise_n = std::size_t{1} << 16;

// An elementwise operation: f on each element's inputs.
checked_operation elementwise(std::string name, std::uint64_t seed, int arity, std::function<double(double, double)> f) {
    checked_operation op;
    op.name = std::move(name);
    for (int k = 0; k < arity; ++k) op.inputs.push_back(fresh(seed + 101 * k, elementwise_n));
    op.exact = [f, arity](const std::vector<std::vector<float>>& in) {
        values out(in[0].size());
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = f(in[0][i], arity > 1 ? in[1][i] : 0.0);
        return out;
    };
    op.tolerance = course::testing::elementwise_tolerance;
    return op;
}

// Half the work of an elementwise call: the second half left at 0.
values first_half_only(values answer) {
    std::fill(answer.begin() + static_cast<std::ptrdiff_t>(answer.size() / 2), answer.end(), 0.0);
    return answer;
}

}  // namespace

TEST(ResultCheck, ElementwiseChecksPassFloat32AndFailEveryShortcut) {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        const std::vector<checked_operation> ops = {
            elementwise("vecadd", seed, 2, [](double a, double b) { return a + b; }),
            elementwise("doublify", seed, 1, [](double a, double) { return 2 * a; }),
            elementwise("saxpy", seed, 2, [](double x, double y) { return 2 * x + y; }),
            elementwise("multiply_add", seed, 2, [](double a, double b) { return a * b + 0.5; }),
        };
        const std::vector<std::function<float(float, float)>> in_float32 = {
            [](float a, float b) { return a + b; },
            [](float a, float) { return 2 * a; },
            [](float x, float y) { return std::fmaf(2.0f, x, y); },
            [](float a, float b) { return a * b + 0.5f; },  // two roundings, no FMA
        };
        for (std::size_t k = 0; k < ops.size(); ++k) {
            const auto& in = ops[k].inputs;
            values f32(in[0].size());
            for (std::size_t i = 0; i < f32.size(); ++i) f32[i] = in_float32[k](in[0][i], in.size() > 1 ? in[1][i] : 0.0f);
            expect_float32_passes(ops[k], f32, "one thread an element");
            expect_shortcuts_fail(ops[k], first_half_only(ops[k].exact(in)));
        }
    }
}

namespace {

constexpr std::size_t reduction_n = std::size_t{1} << 22;

// Float32 as a grid of `threads` threads adds: each thread its strided
// share, in order; then the partials in a tree (warp shuffles, a block's
// shared memory, a last pass). Adding them one after another instead (one
// thread, or atomicAdd into one float) errs by far more: 2^28 values in one
// float accumulator lose about sqrt(2^28) roundings' worth, near 1e-3 of the
// total, which the check refuses as it always has.
float strided_float_sum(const std::vector<float>& x, std::size_t threads, float (*map)(float)) {
    std::vector<float> partial(threads, 0.0f);
    for (std::size_t i = 0; i < x.size(); ++i) partial[i % threads] += map(x[i]);
    for (std::size_t width = threads / 2; width > 0; width /= 2)
        for (std::size_t i = 0; i < width; ++i) partial[i] += partial[i + width];
    return partial[0];
}
float same(float x) { return x; }
float square(float x) { return x * x; }

}  // namespace

TEST(ResultCheck, ReductionChecksPassFloat32AndFailEveryShortcut) {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        checked_operation sum{"sum", {fresh(seed, reduction_n)}, [](const auto& in) {
                                  double s = 0;
                                  for (const float x : in[0]) s += x;
                                  return values{s};
                              },
                              course::testing::reduction_tolerance};
        checked_operation norm{"l2_norm", {sum.inputs[0]}, [](const auto& in) {
                                   double s = 0;
                                   for (const float x : in[0]) s += double{x} * x;
                                   return values{std::sqrt(s)};
                               },
                               course::testing::reduction_tolerance};
        const auto& x = sum.inputs[0];
        // The orders a right kernel adds in: each thread 2048 values (as few
        // threads as fill a GPU would take of 2^28), 64, or 16.
        for (const std::size_t threads : {reduction_n / 2048, reduction_n / 64, reduction_n / 16}) {
            const std::string how = std::to_string(threads) + " threads";
            expect_float32_passes(sum, {strided_float_sum(x, threads, same)}, how.c_str());
            expect_float32_passes(norm, {std::sqrt(strided_float_sum(x, threads, square))}, how.c_str());
        }
        // Half the inputs, scaled up as an estimate of the whole.
        double half = 0, half_squares = 0;
        for (std::size_t i = 0; i < x.size() / 2; ++i) half += x[i], half_squares += double{x[i]} * x[i];
        expect_shortcuts_fail(sum, {2 * half});
        expect_shortcuts_fail(norm, {std::sqrt(2 * half_squares)});
    }
}

TEST(ResultCheck, MatrixProductCheckPassesFloat32AndFailsEveryShortcut) {
    // 2048 along K, as the timed tests; 48 x 40 elements of C are enough to
    // see each shortcut.
    constexpr std::size_t m = 48, n = 40, k = 2048;
    for (const std::uint64_t seed : {1u, 2u}) {
        checked_operation product{"matmul", {fresh(seed, m * k), fresh(seed + 101, k * n)},
                                  [](const auto& in) {
                                      values c(m * n, 0.0);
                                      for (std::size_t i = 0; i < m; ++i)
                                          for (std::size_t j = 0; j < n; ++j)
                                              for (std::size_t p = 0; p < k; ++p)
                                                  c[i * n + j] += double{in[0][i * k + p]} * in[1][p * n + j];
                                      return c;
                                  },
                                  course::testing::matmul_tolerance};
        const auto& a = product.inputs[0];
        const auto& b = product.inputs[1];
        // One float32 accumulator along K, as every kernel of the lesson
        // keeps one per element of C: with FMA and without.
        values fused(m * n), separate(m * n), half(m * n);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                float f = 0, s = 0;
                double h = 0;
                for (std::size_t p = 0; p < k; ++p) {
                    f = std::fmaf(a[i * k + p], b[p * n + j], f);
                    const float term = a[i * k + p] * b[p * n + j];
                    s += term;
                    if (p < k / 2) h += 2.0 * a[i * k + p] * b[p * n + j];
                }
                fused[i * n + j] = f;
                separate[i * n + j] = s;
                half[i * n + j] = h;
            }
        expect_float32_passes(product, fused, "FMA along K");
        expect_float32_passes(product, separate, "multiply, then add, along K");
        expect_shortcuts_fail(product, half);
    }
}

// The inputs of each draw have a distribution of their own: a kernel cannot
// learn the timed calls' statistics from one call, nor tell them apart from
// others by them.
TEST(FreshInputs, EachDrawHasItsOwnDistribution) {
    constexpr std::size_t n = std::size_t{1} << 16;
    std::set<long> negative_shares, lowest_octaves;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const auto x = fresh(seed * 1000, n);
        std::size_t negative = 0;
        double smallest = INFINITY, median_sized = 0;
        std::vector<double> sizes;
        for (const float v : x) {
            negative += v < 0;
            sizes.push_back(std::fabs(v));
        }
        std::sort(sizes.begin(), sizes.end());
        smallest = sizes.front();
        median_sized = sizes[n / 2];
        const double share = static_cast<double>(negative) / n;
        // Mixed signs, never balanced: the sum is at least 0.4 of the sum of magnitudes.
        EXPECT_TRUE((share > 0.08 && share < 0.32) || (share > 0.68 && share < 0.92)) << "seed " << seed << ": " << share;
        // Several octaves, and a few values 256 times larger.
        EXPECT_GE(sizes[n - 1] / smallest, 8.0 * 256) << "seed " << seed;
        EXPECT_GT(std::count_if(sizes.begin(), sizes.end(), [&](double s) { return s >= 128 * median_sized; }), 16)
            << "seed " << seed;
        // Below the 10 bits TF32 and FP16 keep, every value has bits of its own.
        EXPECT_EQ(std::count_if(x.begin(), x.end(), [](float v) { return to_tf32(v) == v; }), 0) << "seed " << seed;
        negative_shares.insert(std::lround(share * 20));
        lowest_octaves.insert(std::lround(std::log2(smallest)));
    }
    EXPECT_GE(negative_shares.size(), 4u) << "the share of negative values hardly changes from draw to draw";
    EXPECT_GE(lowest_octaves.size(), 3u) << "the magnitudes' range hardly changes from draw to draw";
}

// Figures no right answer reaches fail: a memory-bound call above 150% of
// the measured copy bandwidth, a float32 product above the CUDA cores' peak.
TEST(FigureCeiling, AFigureAboveWhatTheGpuCanDoFails) {
    using course::testing::beyond_ceiling;
    EXPECT_TRUE(beyond_ceiling(1.07, course::testing::most_copy_share, "4400 GB/s", "...").empty());
    const std::string too_fast = beyond_ceiling(1.9, course::testing::most_copy_share, "7800 GB/s", "190% of the copy");
    EXPECT_NE(too_fast.find("7800 GB/s is more than this GPU can do: 190% of the copy"), std::string::npos) << too_fast;
    EXPECT_NE(too_fast.find("not all done"), std::string::npos) << too_fast;

    // An H100 SXM: 132 SMs of 128 lanes at 1980 MHz, NVIDIA's 67 TFLOP/s.
    EXPECT_NEAR(course::testing::peak_float32_gflops(9, 0, 132, 1'980'000), 66'908, 1);
    EXPECT_EQ(course::testing::float32_lanes_per_sm(8, 0), 64);   // A100
    EXPECT_EQ(course::testing::float32_lanes_per_sm(7, 5), 64);   // T4
    EXPECT_EQ(course::testing::float32_lanes_per_sm(8, 9), 128);  // L4
    EXPECT_EQ(course::testing::float32_lanes_per_sm(12, 0), 128);
    // cuBLAS's float32 GEMM at 2048^3 on an H200 (50.8 TFLOP/s) is below the
    // ceiling; a product read as TF32 on the tensor cores at 400 is not.
    const double h200 = course::testing::peak_float32_gflops(9, 0, 132, 1'980'000);
    EXPECT_TRUE(beyond_ceiling(50'800, h200, "", "").empty());
    EXPECT_FALSE(beyond_ceiling(400'000, h200, "", "").empty());
}
