// Graded tests for lesson06, part 3: raw kernels compiled at run time. Each
// GRADED_TEST carries its points and the title the report shows.
//
// Kernels here are compiled by NVRTC while the tests run, a few hundred
// milliseconds each the first time. Tests that watch the cache use sources of
// their own (with this run's seed in a comment), so no earlier test can have
// compiled them already.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/cuda_error.hpp"
#include "course/stream.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/stream_order.hpp"
#include "kernels_check.hpp"
#include "raw_kernel.hpp"

namespace {

using namespace lesson06::testing;
using course::testing::observe;

template <class T>
const char* type_name() {
    return sizeof(T) == 4 ? "float" : "double";
}

// Inputs for my_add are longer than the n elements handed over: a kernel that
// forgets its bounds check then reads numbers that belong to the test, not
// memory that may not exist, and the output's guard band shows its writes.
constexpr std::size_t input_padding = 1024;

template <class T>
void check_my_add(std::size_t n, int threads) {
    const std::string what = fmt::format("my_add<{}>, n = {}, {} threads per block", type_name<T>(),
                                         course::with_commas(n), threads);
    const auto x1 = uniform_input<T>(n + input_padding, "x1");
    const auto x2 = uniform_input<T>(n + input_padding, "x2");
    output<T> y(n);
    lesson06::my_add(x1.view(0, n), x2.view(0, n), y.view(), threads);
    CUDA_CHECK(cudaDeviceSynchronize());
    expectation expected{std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t i = 0; i < n; ++i) {
        expected.value[i] = double{x1.host[i]} + double{x2.host[i]};
        expected.allowed[i] = unit_roundoff<T>() * std::fabs(expected.value[i]);  // one rounding
    }
    expect_elements(y.result(), expected, what, {}, static_cast<std::size_t>(threads));
    y.expect_untouched_outside(what + " (the kernel needs if (i < n): the last block has threads "
                                      "with no element, and the seed's 25 elements run 487 of them)");
    expect_unchanged(x1);
    expect_unchanged(x2);
}

// A comment that makes a source unique to this run and test, so the cache
// cannot already hold it.
std::string unique_tag(const char* test) {
    return fmt::format("// {} run {}\n", test, course::testing::seed());
}

// y[i] = VALUE for i < n; VALUE is a macro the options may set.
constexpr const char* fill_source = R"cuda(
#ifndef VALUE
#define VALUE 1.5f
#endif
extern "C" __global__ void fill(float* y, unsigned long long n)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = VALUE;
}
)cuda";

// Fills n elements with kernel `fill` and fails unless they all hold `value`.
void expect_fill(const lesson06::raw_kernel& fill, float value, const std::string& what) {
    const std::size_t n = 1000;
    output<float> y(n);
    float* out = y.view().data();
    const auto count = static_cast<unsigned long long>(n);
    fill.launch(dim3(4), dim3(256), 0, nullptr, out, count);
    CUDA_CHECK(cudaDeviceSynchronize());
    expect_elements(y.result(), expectation{std::vector<double>(n, value), std::vector<double>(n, 0.0)}, what);
    y.expect_untouched_outside(what);
}

}  // namespace

// ---------------------------------------------------------------------------
// The seed's my_add
GRADED_TEST(RawKernel, MyAddSeed, 2, "my_add: the seed's 25 elements in one block of 512 threads") {
    check_my_add<float>(25, 512);
}

GRADED_TEST(RawKernel, MyAddSizes, 1, "my_add: 1, 1025 and 2^20 + 3 elements, float and double") {
    for (std::size_t n : {1, 1025, (1 << 20) + 3}) check_my_add<float>(n, 256);
    check_my_add<double>(25, 512);
    check_my_add<double>(1025, 128);
}

GRADED_STREAM_TEST(RawKernel, HonoursStream, 1,
            "my_add honours a non-blocking stream with work queued ahead (100,003 elements)") {
    using namespace course::testing;
    const std::size_t n = 100003;
    course::device_array<float> x1(n), x2(n), y(n);
    stream_order_check check;
    check.call_name = "my_add";
    check.right_way = "raw_kernel::launch must hand its stream to cudaLaunchKernel, and my_add its own to launch";
    check.inputs = {random_stream_input(x1.view(), "x1"), random_stream_input(x2.view(), "x2")};
    check.call = [&, out = y.view()](cudaStream_t s) { lesson06::my_add(x1.view(), x2.view(), out, 256, s); };
    check.output = y.view();
    check.expected = [](const std::vector<std::vector<float>>& v) {
        std::vector<double> expected(v[0].size());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = double{v[0][i]} + double{v[1][i]};
        return expected;
    };
    check.tol = {unit_roundoff<float>(), 0.0};  // one rounding
    expect_honours_stream(check);
}

GRADED_TEST(RawKernel, RejectsTooManyThreads, 1, "my_add with 2048 threads per block is reported as an error") {
    const auto x1 = uniform_input<float>(4096, "x1");
    const auto x2 = uniform_input<float>(4096, "x2");
    output<float> y(4096);
    course::testing::expect_launch_refused([&] { lesson06::my_add(x1.view(), x2.view(), y.view(), 2048); },
                                           "my_add with 2048 threads per block");
}

// ---------------------------------------------------------------------------
// The cache
GRADED_TEST(RawKernel, CompilesOnce, 2, "the same source, name and options compile once per process") {
    // Every count is evidence: the checks compare the student's counts with
    // each other, never with what this process compiled before.
    const std::string source = unique_tag("CompilesOnce") + fill_source;
    const std::size_t before = observe("compilations before", lesson06::raw_kernel::compilations());
    const lesson06::raw_kernel first(source, "fill");
    const std::size_t after_first =
        observe("compilations after the first", lesson06::raw_kernel::compilations());
    EXPECT_EQ(after_first, before + 1)
        << "the first raw_kernel made from a new source must compile it, once: "
           "raw_kernel::compilations() should have grown by 1";
    const lesson06::raw_kernel second(source, "fill");
    EXPECT_EQ(observe("compilations after the second", lesson06::raw_kernel::compilations()), after_first)
        << "a second raw_kernel with the same source, name and options compiled again: it should "
           "find the first one's kernel in the process-wide cache";
    EXPECT_TRUE(observe("one loaded kernel", first.handle() == second.handle()))
        << "two raw_kernels of one source and name should share one loaded kernel (one cudaKernel_t)";
    expect_fill(second, 1.5f, "fill, from the cache");

    // Options change the compiled code, so they are part of the key.
    const lesson06::raw_kernel other(source, "fill", {"-DVALUE=2.5f"});
    EXPECT_EQ(observe("compilations with other options", lesson06::raw_kernel::compilations()),
              after_first + 1)
        << "a raw_kernel with different options (-DVALUE=2.5f) must compile again: the options "
           "belong in the cache key";
    expect_fill(other, 2.5f, "fill compiled with -DVALUE=2.5f");

    // my_add, called again and again, compiles at most once (an earlier test
    // may have compiled it already).
    const auto x = uniform_input<float>(100 + input_padding, "x");
    output<float> y(100);
    const std::size_t before_calls =
        observe("compilations before my_add", lesson06::raw_kernel::compilations());
    for (int call = 0; call < 3; ++call) lesson06::my_add(x.view(0, 100), x.view(0, 100), y.view());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::size_t after_calls =
        observe("compilations after my_add", lesson06::raw_kernel::compilations());
    EXPECT_LE(after_calls, before_calls + 1)
        << "three calls of my_add compiled " << after_calls - before_calls
        << " times: each call should find the compiled kernel in the cache";
}

// ---------------------------------------------------------------------------
// Finding kernels by name
GRADED_TEST(RawKernel, NameExpressions, 1, "a kernel template found by name expression: scale<float> and scale<double>") {
    const std::string source = unique_tag("NameExpressions") + R"cuda(
template <typename T>
__global__ void scale(T* x, T factor, unsigned long long n)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}
)cuda";
    const lesson06::raw_kernel as_float(source, "scale<float>");
    const lesson06::raw_kernel as_double(source, "scale<double>");
    EXPECT_EQ(observe("name()", as_float.name()), "scale<float>");
    // C++ names are mangled: the symbol of scale<float> encodes its template
    // argument and parameters, and starts with _Z.
    const std::string lowered_float = observe("lowered_name() of scale<float>", as_float.lowered_name());
    const std::string lowered_double = observe("lowered_name() of scale<double>", as_double.lowered_name());
    EXPECT_EQ(lowered_float.rfind("_Z", 0), 0u)
        << "scale<float> is a C++ template: its compiled name (nvrtcGetLoweredName) is mangled and "
           "starts with _Z, but lowered_name() is \"" << lowered_float << "\"";
    EXPECT_NE(lowered_float, lowered_double)
        << "scale<float> and scale<double> are two kernels with two names";

    const std::size_t n = 1000;
    auto xf = uniform_input<float>(n, "xf");
    auto xd = uniform_input<double>(n, "xd");
    float* pf = xf.device.data();
    double* pd = xd.device.data();
    as_float.launch(dim3(4), dim3(256), 0, nullptr, pf, 3.0f, static_cast<unsigned long long>(n));
    as_double.launch(dim3(4), dim3(256), 0, nullptr, pd, -0.5, static_cast<unsigned long long>(n));
    CUDA_CHECK(cudaDeviceSynchronize());
    expectation ef{std::vector<double>(n), std::vector<double>(n)};
    expectation ed{std::vector<double>(n), std::vector<double>(n, 0.0)};  // * -0.5 is exact
    for (std::size_t i = 0; i < n; ++i) {
        ef.value[i] = 3.0 * xf.host[i];
        ef.allowed[i] = unit_roundoff<float>() * std::fabs(ef.value[i]);
        ed.value[i] = -0.5 * xd.host[i];
    }
    expect_elements(observe("scale<float> result", xf.device.to_host()), ef, "scale<float> by 3");
    expect_elements(observe("scale<double> result", xd.device.to_host()), ed, "scale<double> by -0.5");
}

GRADED_TEST(RawKernel, ExternCWithSharedMemory, 1,
            "an extern \"C\" kernel with dynamic shared memory, launched on a stream") {
    // Each block reverses its own 128 elements through shared memory: it only
    // works if launch() passes the shared memory size and the stream on.
    const std::string source = unique_tag("ExternCWithSharedMemory") + R"cuda(
extern "C" __global__ void reverse_blocks(const float* in, float* out)
{
    extern __shared__ float tile[];
    const unsigned base = blockIdx.x * blockDim.x;
    tile[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}
)cuda";
    const lesson06::raw_kernel reverse(source, "reverse_blocks");
    EXPECT_EQ(observe("lowered_name()", reverse.lowered_name()), "reverse_blocks")
        << "an extern \"C\" kernel keeps its plain name in the compiled code";
    const unsigned threads = 128, blocks = 5;
    const std::size_t n = std::size_t{threads} * blocks;
    const auto x = uniform_input<float>(n, "x");
    output<float> y(n);
    const course::stream stream;
    const float* in = x.device.data();
    float* out = y.view().data();
    reverse.launch(dim3(blocks), dim3(threads), threads * sizeof(float), stream.get(), in, out);
    stream.synchronize();
    expectation expected{std::vector<double>(n), std::vector<double>(n, 0.0)};
    for (std::size_t i = 0; i < n; ++i)
        expected.value[i] = x.host[i / threads * threads + (threads - 1 - i % threads)];
    expect_elements(y.result(), expected, "reverse_blocks with 512 bytes of shared memory a block");
    y.expect_untouched_outside("reverse_blocks");
}

// ---------------------------------------------------------------------------
// Errors
GRADED_TEST(RawKernel, CompileErrorHasLog, 1, "a source that does not compile throws compile_error with NVRTC's log") {
    const std::string source = unique_tag("CompileErrorHasLog") + R"cuda(
extern "C" __global__ void broken(float* y)
{
    y[0] = undeclared_thing * 2.0f;
}
)cuda";
    enum class outcome : int { compiled, compile_error, not_implemented, other_exception };
    for (int attempt = 1; attempt <= 2; ++attempt) {  // a failure is not cached: the second fails the same way
        outcome how = outcome::compiled;
        std::string log, message;  // compile_error::log(), and what() of whatever was thrown
        try {
            const lesson06::raw_kernel kernel(source, "broken");
        } catch (const lesson06::compile_error& e) {
            how = outcome::compile_error;
            log = e.log();
            message = e.what();
        } catch (const course::not_implemented& e) {
            how = outcome::not_implemented;
            message = e.what();
        } catch (const std::exception& e) {
            how = outcome::other_exception;
            message = e.what();
        }
        // What happened is evidence: the checks below follow the recorded
        // outcome, not the one this process saw.
        how = observe("outcome", how);
        log = observe("log()", std::move(log));
        message = observe("what()", std::move(message));
        if (how == outcome::compiled) {
            ADD_FAILURE() << "a source that uses an undeclared identifier compiled without complaint "
                             "(attempt " << attempt << "): check nvrtcCompileProgram's status, it does "
                             "not throw by itself";
        } else if (how == outcome::not_implemented) {
            ADD_FAILURE() << message;
            return;
        } else if (how != outcome::compile_error) {
            ADD_FAILURE() << "a source that does not compile threw, but not a lesson06::compile_error: "
                          << message
                          << "\nThrow compile_error(status, name, log) with NVRTC's log "
                             "(nvrtcGetProgramLogSize, nvrtcGetProgramLog).";
            return;
        } else {
            EXPECT_NE(log.find("undeclared_thing"), std::string::npos)
                << "compile_error::log() should be NVRTC's log, which names the undeclared "
                   "identifier; it is:\n" << log;
            EXPECT_NE(message.find("undeclared_thing"), std::string::npos)
                << "the error's message should carry NVRTC's log (compile_error puts it there); it is:\n"
                << message;
        }
    }
}
