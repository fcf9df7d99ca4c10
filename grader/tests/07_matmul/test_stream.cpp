// Graded tests for lesson07: each version honours the stream it is given
// (course/testing/stream_order.hpp). On a stream created with
// cudaStreamNonBlocking, held by a kernel of the test's, new A and B are
// written and the product is queued behind them: it must read them, and be
// done when the stream is.
#include <cuda_runtime_api.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/random.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/stream_order.hpp"
#include "matmul.cuh"

namespace {

using namespace course::testing;
using multiply_on = std::function<void(lesson07::const_matrix, lesson07::const_matrix, lesson07::matrix, cudaStream_t)>;

// M x N x K, none a multiple of a tile.
constexpr std::size_t m = 130, n = 97, k = 70;

// Whole numbers from -4 to 4 (rarely 5 in size): every product and every sum
// of 70 of them is exact in float32, and in TF32 too, in any order, so the
// product is checked exactly.
stream_input whole_numbers(course::device_span<float> device, const std::string& name) {
    auto draw = [&](const std::string& which) {
        std::vector<float> v = course::random_floats(device.size(), course::derive_seed(seed(), which.c_str()), -4.5f, 4.5f);
        for (float& x : v) x = std::round(x);
        return v;
    };
    return {device, draw(name + " before"), draw(name + " on the stream")};
}

void check_on_stream(const std::string& name, const std::string& right_way, const multiply_on& multiply,
                     const std::string& what_ran = "your kernel") {
    course::device_array<float> a(m * k), b(k * n), c(m * n);
    const lesson07::const_matrix a_view(a.data(), m, k), b_view(b.data(), k, n);
    const lesson07::matrix c_view(c.data(), m, n);
    stream_order_check check;
    check.call_name = name;
    check.what_ran = what_ran;
    check.right_way = right_way;
    check.inputs = {whole_numbers(a.view(), "a"), whole_numbers(b.view(), "b")};
    check.call = [&](cudaStream_t s) { multiply(a_view, b_view, c_view, s); };
    check.output = c.view();
    check.expected = [](const std::vector<std::vector<float>>& v) {
        std::vector<double> product(m * n, 0.0);
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t kk = 0; kk < k; ++kk)
                for (std::size_t j = 0; j < n; ++j) product[i * n + j] += double{v[0][i * k + kk]} * v[1][kk * n + j];
        return product;
    };
    check.tol = {0.0, 0.0};
    expect_honours_stream(check);
}

constexpr const char* launch_on_stream = "launch with `<<<grid, block, 0, stream>>>`";

}  // namespace

GRADED_STREAM_TEST(Naive, HonoursStream, 1, "naive honours a non-blocking stream with work queued ahead (130 x 97 x 70)") {
    check_on_stream("matmul_naive", launch_on_stream, lesson07::matmul_naive);
}

GRADED_STREAM_TEST(Tiled, HonoursStream, 1, "tiled honours a non-blocking stream with work queued ahead (130 x 97 x 70)") {
    check_on_stream("matmul_tiled", launch_on_stream, lesson07::matmul_tiled);
}

GRADED_STREAM_TEST(RegisterBlocked, HonoursStream, 1,
            "register-blocked honours a non-blocking stream with work queued ahead (130 x 97 x 70)") {
    check_on_stream("matmul_register_blocked", launch_on_stream, lesson07::matmul_register_blocked);
}

GRADED_STREAM_TEST(Cublas, HonoursStream, 1,
            "cuBLAS honours a non-blocking stream with work queued ahead (130 x 97 x 70)") {
    lesson07::cublas_matmul multiply;  // one handle for every call, as a program keeps it
    check_on_stream("cublas_matmul", "give the handle the stream, cublasSetStream(handle, stream), before cublasSgemm",
                    [&](lesson07::const_matrix a, lesson07::const_matrix b, lesson07::matrix c, cudaStream_t s) {
                        multiply(a, b, c, s);
                    },
                    "cuBLAS's kernel");
}
