// Graded tests for lesson03, part 2: the driver API on the GPU. Each test
// reaches the driver through lesson03::driver() (the runtime finds it), so
// this program starts, and skips these tests, on a machine with no driver.
//
// What the tests check of the code under test passes through observe(): the
// grader's judge reruns these tests on the student's recorded results
// (course/testing/evidence.hpp). The output checks of guarded_output,
// expect_unchanged and expect_bandwidth_share observe on their own.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "course/benchmark.hpp"
#include "course/compare.hpp"
#include "course/device_array.hpp"
#include "course/device_info.hpp"
#include "course/driver_error.hpp"
#include "course/cuda_error.hpp"
#include "course/random.hpp"
#include "course/temp_dir.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/expect.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/graders_clock.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/stream_order.hpp"
#include "driver_api.hpp"
#include "nvrtc_compile.hpp"
#include "observed_call.hpp"
#include "saxpy_driver.hpp"

namespace {

namespace fs = std::filesystem;
using namespace course::testing;
using lesson03_tests::observe_call;
using lesson03_tests::observed_call;

// a*x and +y are each rounded to float: at most an ulp of error on values
// up to |a*x| + |y| <= 3 here. 1e-6 relative plus 1e-6 absolute leaves room
// for that and catches any wrong formula.
constexpr course::tolerance saxpy_tolerance{1e-6, 1e-6};

std::vector<double> reference(float a, const std::vector<float>& x, const std::vector<float>& y) {
    std::vector<double> expected(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) expected[i] = double{a} * x[i] + y[i];
    return expected;
}

// What a saxpy computes when a known mistake is made, and the mistake. The
// argument array of cuLaunchKernel is where inputs most often get swapped:
// nothing checks its order against the kernel's parameters.
std::vector<known_wrong_result> wrong_saxpys(float a, const std::vector<float>& x, const std::vector<float>& y) {
    const std::size_t n{x.size()};
    std::vector<known_wrong_result> wrong{
        {"a*y + x", {}, "x and y reached the kernel swapped. The argument array for cuLaunchKernel must "
                        "list the kernel's parameters in order: a, x, y, out, n"},
        {"x", {}, "out holds x unchanged: was the right buffer passed as out, or copied back?"},
        {"y", {}, "out holds y unchanged: was the right buffer passed as out, or copied back?"},
        {"a*x", {}, "y is not added: check the arguments for y in the argument array"},
        {"0", {}, "nothing came back into out: was the kernel launched, and out copied back after it, all "
                "n * sizeof(float) bytes?"}};
    for (auto& w : wrong) w.values.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        wrong[0].values[i] = double{a} * y[i] + x[i];
        wrong[1].values[i] = x[i];
        wrong[2].values[i] = y[i];
        wrong[3].values[i] = double{a} * x[i];
        wrong[4].values[i] = 0.0;
    }
    return wrong;
}

// The result of copies that move n bytes for n floats: only the first
// quarter of the elements (n / 4 floats) make the trip.
bool only_first_quarter_right(const course::comparison& c) {
    const std::size_t n = c.count;
    return n >= 4 && (c.first_wrong == n / 4 || c.first_wrong == (n + 3) / 4) &&
           c.wrong == n - c.first_wrong;
}

CUdeviceptr address(course::device_span<const float> span) {
    return reinterpret_cast<CUdeviceptr>(span.data());
}
CUdeviceptr address(course::device_span<float> span) { return reinterpret_cast<CUdeviceptr>(span.data()); }

// saxpy compiled to a CUBIN for this GPU and loaded in the primary context:
// what the launch tests need. Members are built in order: context first.
struct loaded_saxpy {
    lesson03::primary_context context{0};
    lesson03::loaded_module module{lesson03::compile_to_cubin(
        lesson03::saxpy_source, "saxpy.cu", {"--fmad=false", "-arch=" + context.arch()})};
    lesson03::kernel_function function = module.function("saxpy");
};

// Launches the student's launch_saxpy on poisoned, guarded output and checks
// everything a right answer implies.
void check_launch(std::size_t n, unsigned threads) {
    SCOPED_TRACE(fmt::format("launch_saxpy: n = {}, {} threads per block", n, threads));
    const loaded_saxpy saxpy;
    const float a = 2.0f;
    const auto x = random_input(n, "x");
    const auto y = random_input(n, "y");
    guarded_output<float> out(n);

    lesson03::launch_saxpy(saxpy.function, a, address(x.view()), address(y.view()), address(out.view()),
                           n, threads, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());

    expect_matches(out, reference(a, x.host, y.host), saxpy_tolerance, launch_1d{threads},
                   wrong_saxpys(a, x.host, y.host), "a*x + y");
    expect_guard_untouched(out);
    expect_unchanged(x);
    expect_unchanged(y);
}

// saxpy_driver allocates its own output, so it cannot be poisoned: a result
// is read by the pattern its wrong elements make.
void expect_saxpy_result(const std::vector<float>& out, float a, const std::vector<float>& x,
                         const std::vector<float>& y, unsigned threads) {
    const std::vector<double> expected = reference(a, x, y);
    if (out.size() != expected.size()) {
        ADD_FAILURE() << fmt::format("saxpy_driver returned {} elements for inputs of {}",
                                     course::with_commas(out.size()), course::with_commas(expected.size()));
        return;
    }
    const course::comparison c = course::compare(out, expected, saxpy_tolerance);
    if (c.ok()) return;
    const std::size_t n{out.size()};
    const std::size_t whole_blocks = n / threads * threads;
    std::string message = describe_mismatch(c.examples.front());
    if (c.wrong > 1) message += "\n" + c.summary();
    const std::string formula = diagnose_known_wrong(out, wrong_saxpys(a, x, y), saxpy_tolerance, "a*x + y");
    if (!formula.empty())
        message += "\n" + formula;
    else if (c.wrong == n)
        message += "\nno element is right. Mistakes that give this: the kernel did not run (a launch "
                   "whose status was not checked), `out` was not copied back, or the stream was not "
                   "synchronised before returning.";
    else if (c.first_wrong == whole_blocks && c.wrong == n - whole_blocks)
        message += fmt::format(
            "\nexactly the last, partial block is wrong: {} elements need {} blocks of {}, so round "
            "the grid up: blocks = (n + threads - 1) / threads",
            course::with_commas(n), (n + threads - 1) / threads, threads);
    else if (only_first_quarter_right(c))
        message += fmt::format(
            "\nexactly the first quarter is right ({} of {} elements) and everything after it is "
            "wrong: a copy of n bytes instead of n * sizeof(float) moves a quarter of the floats. "
            "Are the sizes of the copies in bytes?",
            course::with_commas(c.first_wrong), course::with_commas(n));
    else if (c.wrong == n - c.first_wrong)
        message += fmt::format("\nevery element from {} on is wrong: does the grid cover all {}, and "
                               "do the copies move all of them?",
                               course::with_commas(c.first_wrong), course::with_commas(n));
    ADD_FAILURE() << message;
}

void check_saxpy_driver(std::size_t n, unsigned threads, bool use_cache = true) {
    SCOPED_TRACE(fmt::format("saxpy_driver: n = {}, {} threads per block, {}", n, threads,
                             use_cache ? "CUBIN from the kernel cache" : "PTX, no cache"));
    const course::temp_dir scratch("lesson03-test");
    lesson03::saxpy_options options;
    options.threads_per_block = threads;
    options.cache_dir = use_cache ? scratch / "kernels" : fs::path();
    const float a = 2.0f;  // the seed's
    // Inputs differ from call to call (the size is in the name), so a buffer
    // that happens to hold an earlier call's result cannot pass for this one.
    const auto x = course::random_floats(n, course::derive_seed(seed(), fmt::format("x{}", n).c_str()));
    const auto y = course::random_floats(n, course::derive_seed(seed(), fmt::format("y{}", n).c_str()));

    const std::vector<float> out = observe("result", lesson03::saxpy_driver(a, x, y, options));
    expect_saxpy_result(out, a, x, y, threads);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

template <class Fn>
double milliseconds_of(Fn&& fn) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// --- Step 2: handles -----------------------------------------------------------

GRADED_TEST(Driver, ContextIsCurrent, 1, "primary_context is current while it lives and knows the GPU") {
    const lesson03::driver_api& cu = lesson03::driver();
    const course::device_properties device = course::query_device(0);
    // The contexts are handles of the recording process: observed, they are
    // compared with each other, never with the judge's own.
    CUcontext before = nullptr;
    CU_CHECK(cu.cuCtxGetCurrent(&before));
    before = observe("current context before", before);
    {
        const lesson03::primary_context context(0);
        CUcontext now = nullptr;
        CU_CHECK(cu.cuCtxGetCurrent(&now));
        const CUcontext primary = observe("primary context", context.get());
        now = observe("current context", now);
        ASSERT_NE(primary, nullptr) << "primary_context holds no context: cuDevicePrimaryCtxRetain";
        EXPECT_EQ(now, primary) << "the primary context is not this thread's current context: "
                                   "make it current with cuCtxPushCurrent";
        EXPECT_EQ(observe("arch()", context.arch()), device.arch())
            << "the compute capability should come from the device (cuDeviceGetAttribute with "
               "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR), never be written in";
    }
    CUcontext after = nullptr;
    CU_CHECK(cu.cuCtxGetCurrent(&after));
    after = observe("current context after", after);
    EXPECT_EQ(after, before) << "after the primary_context is gone, this thread's current context "
                                "should be what it was before: pop in the destructor what the "
                                "constructor pushed (cuCtxPopCurrent)";
}

GRADED_TEST(Driver, WrongKernelName, 1, "asking for a kernel that is not there names it in the error") {
    const lesson03::primary_context context(0);
    const lesson03::loaded_module module(lesson03::compile_to_ptx(
        lesson03::saxpy_source, "saxpy.cu", {"--gpu-architecture=" + context.virtual_arch()}));
    EXPECT_NE(observe("saxpy's CUfunction", module.function("saxpy").get()), nullptr)
        << "the module's saxpy came back null";
    const observed_call missing =
        observe_call("module.function(\"saxpi\")", [&] { module.function("saxpi"); });
    if (missing.kind == observed_call::returned) {
        ADD_FAILURE() << "module.function(\"saxpi\") returned, but the module has no such kernel: "
                         "check cuModuleGetFunction's status";
    } else if (missing.kind != observed_call::cuda_error) {
        ADD_FAILURE() << "module.function(\"saxpi\") threw, but not a course::cuda_error (CU_CHECK): "
                      << missing.what;
    } else {
        EXPECT_EQ(missing.code, CUDA_ERROR_NOT_FOUND)
            << "expected CUDA_ERROR_NOT_FOUND, got " << missing.code_name << ": " << missing.what;
        if (missing.what.find("saxpi") == std::string::npos)
            ADD_FAILURE() << "the error does not say which kernel was missing; \"named symbol not found\" alone "
               "leaves the reader guessing. Put the name in the message. It was:\n"
            << missing.what;
    }
}

// --- Step 3: launch ------------------------------------------------------------

GRADED_TEST(Launch, PartialLastBlock, 2, "n not a multiple of the block (129/128, 3585/512, 1000/256)") {
    check_launch(129, 128);
    check_launch(3585, 512);
    check_launch(1000, 256);
}

GRADED_TEST(Launch, EmptyLaunchesNothing, 1, "n = 0 launches nothing and writes nothing") { check_launch(0, 512); }

GRADED_STREAM_TEST(Launch, HonoursStream, 1,
            "honours a non-blocking stream with work queued ahead (100,003 elements)") {
    const loaded_saxpy saxpy;
    const std::size_t n = 100003;
    const float a = 2.0f;
    course::device_array<float> x(n), y(n), out(n);
    stream_order_check check;
    check.call_name = "launch_saxpy";
    check.right_way = "pass the stream to cuLaunchKernel, after the shared memory bytes";
    check.inputs = {random_stream_input(x.view(), "x"), random_stream_input(y.view(), "y")};
    check.call = [&, xs = x.view(), ys = y.view(), outs = out.view()](CUstream s) {
        lesson03::launch_saxpy(saxpy.function, a, address(xs), address(ys), address(outs), n, 256, s);
    };
    check.output = out.view();
    check.expected = [a](const std::vector<std::vector<float>>& v) { return reference(a, v[0], v[1]); };
    check.tol = saxpy_tolerance;
    expect_honours_stream(check);
}

GRADED_TEST(Launch, BadBlockSizeReported, 1, "2048 threads per block is reported as a driver error") {
    const loaded_saxpy saxpy;
    const auto x = random_input(4096, "x");
    const auto y = random_input(4096, "y");
    guarded_output<float> out(4096);
    const observed_call launch = observe_call("launch_saxpy with 2048 threads per block", [&] {
        lesson03::launch_saxpy(saxpy.function, 2.0f, address(x.view()), address(y.view()),
                               address(out.view()), 4096, 2048, nullptr);
        cudaDeviceSynchronize();
    });
    if (launch.kind == observed_call::returned) {
        // Whether a kernel ran tells a refused launch left unchecked from a
        // launch that was not the one asked for.
        const std::vector<float> written = out.to_host();
        const bool all_right = course::compare(written, reference(2.0f, x.host, y.host), saxpy_tolerance).ok();
        if (all_right)
            ADD_FAILURE() << "a launch with 2048 threads per block returned normally and out holds the "
                             "right result, so a kernel ran; no GPU runs blocks of more than 1024 "
                             "threads, so 2048 did not reach cuLaunchKernel as the block size. Are grid "
                             "and block swapped? cuLaunchKernel takes the grid's x, y, z first, then "
                             "the block's.";
        else
            ADD_FAILURE() << "a launch with 2048 threads per block returned normally, but no GPU runs "
                             "blocks of more than 1024 threads: check cuLaunchKernel's status (CU_CHECK)";
    } else if (launch.kind != observed_call::cuda_error) {
        ADD_FAILURE() << "expected the driver's error from cuLaunchKernel, got " << launch.what;
    } else {
        EXPECT_EQ(launch.api, "driver")
            << "expected the driver's error from cuLaunchKernel, got " << launch.what;
        EXPECT_EQ(launch.code_name.rfind("CUDA_ERROR_", 0), 0u)
            << "the error should carry the driver's name for the status (CU_CHECK looks it up), got "
            << launch.what;
    }
}

// --- Step 4: the whole program -------------------------------------------------

GRADED_TEST(SaxpyDriver, SingleElement, 1, "n = 1") { check_saxpy_driver(1, 512); }

GRADED_TEST(SaxpyDriver, NotMultipleOfBlock, 2, "n not a multiple of the block (51,237/512, 1,000/128)") {
    check_saxpy_driver(512 * 100 + 37, 512);
    check_saxpy_driver(1000, 128);
}

GRADED_TEST(SaxpyDriver, Large, 2, "the seed's size: 512 x 32768 elements") {
    check_saxpy_driver(std::size_t{512} * 32768, 512);
}

GRADED_TEST(SaxpyDriver, WithoutCache, 1, "no cache directory: PTX from NVRTC, as the seed does") {
    check_saxpy_driver(4097, 512, /*use_cache=*/false);
}

GRADED_TEST(SaxpyDriver, UsesCache, 1, "with a cache directory, saxpy is compiled once and then read") {
    const course::temp_dir scratch("lesson03-test");
    lesson03::saxpy_options options;
    options.cache_dir = scratch / "kernels";
    const std::vector<float> x(1000, 1.0f), y(1000, 0.5f);
    for (int run = 0; run < 2; ++run) {
        const std::vector<float> out = observe("result", lesson03::saxpy_driver(2.0f, x, y, options));
        expect_saxpy_result(out, 2.0f, x, y, options.threads_per_block);
    }
    std::size_t files = 0;
    if (fs::is_directory(options.cache_dir))
        for (const auto& item : fs::directory_iterator(options.cache_dir)) files += item.is_regular_file();
    files = observe("files in the cache", files);
    EXPECT_EQ(files, 1u) << "after two calls the cache directory should hold exactly one entry (the "
                            "CUBIN of saxpy for this GPU): does saxpy_driver compile through "
                            "kernel_cache(options.cache_dir) when cache_dir is not empty?";
}

GRADED_TEST(SaxpyDriver, ReleasesResources, 2, "50 calls leave free device memory as it was") {
    const course::temp_dir scratch("lesson03-test");
    lesson03::saxpy_options options;
    options.cache_dir = scratch / "kernels";
    const std::size_t n = std::size_t{1} << 22;  // 16 MiB a buffer
    const auto x = course::random_floats(n, course::derive_seed(seed(), "x"));
    const auto y = course::random_floats(n, course::derive_seed(seed(), "y"));
    CUDA_CHECK(cudaFree(nullptr));             // the runtime holds the primary context from here on
    lesson03::saxpy_driver(2.0f, x, y, options);  // the first call compiles and fills the cache

    const auto free_mib = [] {
        std::size_t free_bytes = 0, total_bytes = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        return static_cast<double>(free_bytes) / (1 << 20);
    };
    // Memory is measured three times. A leak makes it fall in both halves;
    // another program that happens to allocate at the same time rarely does.
    // The bound leaves room for tools such as compute-sanitizer, which keep
    // some memory of their own, and is still a quarter of one leaked buffer a
    // call.
    // The three measurements are evidence: the judge's own memory says nothing of the student's.
    const double before = observe("free MiB before", free_mib());
    for (int i = 0; i < 25; ++i) lesson03::saxpy_driver(2.0f, x, y, options);
    const double middle = observe("free MiB after 25 calls", free_mib());
    for (int i = 0; i < 25; ++i) lesson03::saxpy_driver(2.0f, x, y, options);
    const double after = observe("free MiB after 50 calls", free_mib());
    const double tolerance_mib = 100;  // over 25 calls
    if (before - middle > tolerance_mib && middle - after > tolerance_mib)
        ADD_FAILURE() << fmt::format(
            "free device memory fell by {:.0f} MiB over 25 calls and by {:.0f} MiB over the next "
            "25, about {:.1f} MiB a call (each of x, y and out is 16 MiB): something allocated "
            "with cuMemAlloc is never freed. Let device_buffer own every allocation, and have its "
            "deleter call cuMemFree.",
            before - middle, middle - after, (before - after) / 50);
}

// --- Performance ---------------------------------------------------------------

GRADED_PERF_TEST_SYSTEM(CachePerf, HitSkipsNvrtc, 2, "a cache hit costs under 10% of an NVRTC compile") {
    const course::temp_dir scratch("lesson03-test");
    const std::string arch = course::query_device(0).arch();
    const std::vector<std::string> options{"--fmad=false"};
    lesson03::kernel_cache(scratch.path()).cubin(lesson03::saxpy_source, "saxpy.cu", options, arch);
    // The hits are timed on the grader's clock, not this program's
    // (graders_clock.hpp); whether each was a hit is evidence.
    std::vector<std::uint8_t> hits;
    const course::testing::host_timing lookup = course::testing::time_on_graders_clock("a cache hit", 5, [&] {
        // A new kernel_cache each time, as a new start of the program would make.
        hits.push_back(lesson03::kernel_cache(scratch.path()).cubin(lesson03::saxpy_source, "saxpy.cu", options, arch).hit);
    });
    hits = course::testing::observe("hits", std::move(hits));
    ASSERT_EQ(hits.size(), static_cast<std::size_t>(lookup.calls))
        << "the program made another number of lookups than the grader asked for";
    const auto misses = std::count(hits.begin(), hits.end(), std::uint8_t{0});
    ASSERT_EQ(misses, 0) << fmt::format("{} of the {} lookups after storing were not hits", misses, hits.size());
    if (!lookup.ns_per_call) return;  // the judge decides, on the grader's clock
    // The compile is the yardstick (NVRTC's cost), measured by the judge.
    std::vector<double> compile_ms;
    for (int i = 0; i < 5; ++i)
        compile_ms.push_back(milliseconds_of([&] {
            lesson03::compile_to_cubin(lesson03::saxpy_source, "saxpy.cu", {"--fmad=false", "-arch=" + arch});
        }));
    const double compile = median(compile_ms), hit = *lookup.ns_per_call / 1e6;
    RecordProperty("nvrtc_ms", std::to_string(compile));
    RecordProperty("cache_hit_ms", std::to_string(hit));
    course::testing::report_figure(fmt::format(
        "a hit {:.3f} ms on the grader's clock, {:.1f}% of an NVRTC compile ({:.2f} ms); under 10% is needed", hit,
        100 * hit / compile, compile));
    EXPECT_LT(hit, 0.10 * compile) << fmt::format(
        "a cache hit took {:.3f} ms (timed by the grader, the best of {} rounds), {:.0f}% of compiling with "
        "NVRTC ({:.2f} ms); under 10% is needed. A hit should only read one file and check it: is something "
        "compiled, or the whole directory read, on the way?",
        hit, course::testing::host_timing_rounds, 100 * hit / compile, compile);
}

GRADED_PERF_TEST(SaxpyDriver, Bandwidth, 1, "launch_saxpy reaches >= 60% of this GPU's copy bandwidth") {
    const std::size_t n = course::testing::elements_that_fit(std::size_t{1} << 26, 3, sizeof(float));
    const loaded_saxpy saxpy;
    course::device_array<float> x(n), y(n), out(n);
    course::testing::timed_calls work;
    work.name = "saxpy (driver API)";
    work.fresh_inputs = [&](std::uint64_t seed, cudaStream_t s) {
        course::testing::fill_fresh(x.view(), seed, s);
        course::testing::fill_fresh(y.view(), seed + 101, s);
    };
    work.call = [&](cudaStream_t s) {
        lesson03::launch_saxpy(saxpy.function, 2.0f, reinterpret_cast<CUdeviceptr>(x.data()),
                               reinterpret_cast<CUdeviceptr>(y.data()), reinterpret_cast<CUdeviceptr>(out.data()),
                               n, 512, s);
    };
    work.output = out.view();
    // The judge replays the launch with its own copy of the given kernel.
    work.arrays = {x.view(), y.view(), out.view()};
    work.given_kernels = {{"saxpy", saxpy.function.get()}};
    course::testing::expect_bandwidth_share(
        work, 3.0 * n * sizeof(float),  // two reads, one write
        n * sizeof(float), 0.60,
        "The kernel is given, so look at the launch: enough blocks to cover n, and nothing that "
        "waits (no synchronisation inside launch_saxpy).");
}
