// Graded tests for lesson05, part 2: the transform kernel, the serial
// baseline, the pipeline over several streams, pinned memory, and the
// overlap the pipeline is for.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/device_array.hpp"
#include "course/device_info.hpp"
#include "course/cuda_error.hpp"
#include "course/pinned_array.hpp"
#include "course/random.hpp"
#include "course/testing/buffers.hpp"
#include "course/testing/expect.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/gpu_overlap.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/timed_calls.hpp"
#include "streams.cuh"

namespace {

using namespace course::testing;

// The kernel's rounds E = M + e sin E converge long before the last one. Each
// float round is off by an ulp or two (sinf, the multiply-add), and the
// contraction (|e cos E| <= 1/2) keeps the total within a few ulps of the
// exact root. A 2M-input host simulation stays under 2e-7 relative.
constexpr course::tolerance kepler_tolerance{4e-6, 1e-6};

// The exact root of E - e sin E = M in double precision, by Newton's method
// (the float64 reference the float results are held to).
double kepler_root(double m) {
    const double e = lesson05::kepler_eccentricity;
    double x = m;
    for (int i = 0; i < 50; ++i) {
        const double step = (x - e * std::sin(x) - m) / (1.0 - e * std::cos(x));
        x -= step;
        if (std::fabs(step) < 1e-15) break;
    }
    return x;
}

std::vector<double> reference(const float* in, std::size_t n) {
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = kepler_root(in[i]);
    return expected;
}

// Random input in pinned memory, with a copy to check it is left unchanged.
struct pinned_input {
    std::vector<float> values;
    course::pinned_array<float> pinned;

    pinned_input(std::size_t n, const char* name)
        : values(course::random_floats(n, course::derive_seed(seed(), name))), pinned(n) {
        std::copy(values.begin(), values.end(), pinned.begin());
    }
    const float* data() const { return pinned.data(); }
};

// Pinned output poisoned with NaN, followed by a poisoned guard band: a NaN
// left afterwards was never written, a changed guard element was written past
// the end.
class pinned_output {
public:
    explicit pinned_output(std::size_t n, std::size_t guard = 1024) : n_(n), storage_(n + guard) {
        std::memset(storage_.data(), 0xFF, storage_.bytes());
    }
    float* data() { return storage_.data(); }
    std::size_t size() const { return n_; }
    // What the code under test left here is evidence (evidence.hpp).
    std::vector<float> values() const {
        return observe_same_size("host_out", std::vector<float>(storage_.begin(), storage_.begin() + n_));
    }
    // How many guard elements changed; *first is the first one's position after the end.
    std::size_t guard_writes(std::size_t* first) const {
        struct writes {
            std::size_t count, first;
        } w{0, 0};
        const auto* bytes = reinterpret_cast<const unsigned char*>(storage_.data() + n_);
        for (std::size_t i = 0; i < storage_.size() - n_; ++i) {
            bool changed = false;
            for (std::size_t b = 0; b < sizeof(float); ++b) changed |= bytes[i * sizeof(float) + b] != 0xFF;
            if (changed && w.count++ == 0) w.first = i;
        }
        w = observe("guard writes", w);
        *first = w.first;
        return w.count;
    }
    bool untouched() const {
        const auto* bytes = reinterpret_cast<const unsigned char*>(storage_.data());
        return observe("host_out untouched",
                       std::all_of(bytes, bytes + storage_.bytes(), [](unsigned char b) { return b == 0xFF; }));
    }

private:
    std::size_t n_;
    course::pinned_array<float> storage_;
};

// The teaching part of a wrong pipeline result: which pattern the wrong
// elements form, and what usually causes it.
std::string diagnose_pipeline(const course::comparison& c, const std::vector<float>& actual,
                              const std::vector<float>& input, int num_chunks) {
    const std::size_t n = c.count;
    // What a chunk size rounded down (n / num_chunks) covers; the rest is lost.
    const std::size_t covered = n / num_chunks * num_chunks;
    const bool tail_unwritten =
        covered < n && c.first_wrong == covered && c.nan == c.wrong &&
        std::all_of(actual.begin() + covered, actual.end(), [](float x) { return std::isnan(x); });
    if (tail_unwritten && covered > 0)
        return fmt::format(
            "the last {} element(s) (n % num_chunks) were never written: a chunk size of n / num_chunks "
            "rounds down, and the remainder belongs to no chunk. Round it up, "
            "s = (n + num_chunks - 1) / num_chunks, and clamp the last chunk to the n - c * s "
            "elements that are left.",
            n - covered);
    if (tail_unwritten)
        return "nothing reached host_out. With fewer elements than chunks, a chunk size of "
               "n / num_chunks is 0: round it up, s = (n + num_chunks - 1) / num_chunks. Otherwise: "
               "are the device-to-host copies queued, and waited for before returning?";
    if (c.nan == n)
        return "nothing reached host_out: are the device-to-host copies queued, and does the function "
               "wait for its streams before returning?";
    std::size_t untransformed = 0;
    for (const auto& m : c.examples)
        if (static_cast<float>(m.actual) == input[m.index]) ++untransformed;
    if (untransformed == c.examples.size())
        return fmt::format(
            "host_out holds the untransformed input (first at element {}): that data was copied back "
            "before the kernel had run on it. Queue each chunk's copy in, kernel and copy out on "
            "the same stream, in that order, and launch the kernel on that stream.",
            course::with_commas(c.first_wrong));
    if (c.nan == c.wrong)
        return fmt::format(
            "{} elements were never written (first at {}): is every chunk's copy out queued, with "
            "the chunk's offset into host_out, and is the wait for all streams at the end?",
            course::with_commas(c.nan), course::with_commas(c.first_wrong));
    if (c.nan == 0)
        return "every element was written, but some hold wrong values: check each chunk's offset "
               "into host_in and host_out (chunk c starts at c * s), that a stream's buffer is only "
               "reused by chunks on that same stream, and the transform itself (exactly "
               "kepler_rounds rounds of e = m + 0.5 sinf(e), starting from e = m)";
    return fmt::format("{} elements were never written (still NaN) and {} hold wrong values",
                       course::with_commas(c.nan), course::with_commas(c.wrong - c.nan));
}

// Everything a right answer implies: each element right, nothing written past
// the end of host_out, host_in untouched.
void expect_transformed(const pinned_input& in, const pinned_output& out, int num_chunks) {
    const std::vector<float> actual = out.values();
    const std::vector<double> expected = reference(in.values.data(), in.values.size());
    const course::comparison c = course::compare(actual, expected, kepler_tolerance);
    if (!c.ok()) {
        std::string message = describe_mismatch(c.examples.front());
        if (c.wrong > 1) message += "\n" + c.summary();
        message += "\n" + diagnose_pipeline(c, actual, in.values, num_chunks);
        ADD_FAILURE() << message;
    }
    std::size_t first = 0;
    if (const std::size_t written = out.guard_writes(&first)) {
        ADD_FAILURE() << fmt::format(
            "wrote past the end of host_out: {} element(s) after the last one changed (the first at "
            "index {}). The last chunk holds only the n - c * s elements that are left: clamp its "
            "copy to them.",
            written, course::with_commas(out.size() + first));
    }
    if (observe("host_in modified", std::memcmp(in.pinned.data(), in.values.data(), in.values.size() * sizeof(float)) != 0))
        ADD_FAILURE() << "host_in was modified: it is read-only, the results go to host_out";
}

void check_pipeline(std::size_t n, int num_streams, int num_chunks) {
    SCOPED_TRACE(fmt::format("n = {}, {} streams, {} chunks", n, num_streams, num_chunks));
    const pinned_input in(n, "host_in");
    pinned_output out(n);
    lesson05::pipelined_transform(in.data(), out.data(), n, num_streams, num_chunks);
    expect_transformed(in, out, num_chunks);
}

// Where an std::invalid_argument is required: fails, with advice, when the
// call returns or throws something else.
// How the call ended and what it said are evidence; returns the message of
// the std::invalid_argument, empty when there was none.
std::string expect_invalid_argument(const std::function<void()>& call, const std::string& what_should_say,
                                    const std::string& advice_if_accepted) {
    enum class ended { normally, invalid_argument, other };
    ended how = ended::normally;
    std::string what;
    try {
        call();
    } catch (const std::invalid_argument& e) {
        how = ended::invalid_argument;
        what = e.what();
    } catch (const course::not_implemented&) {
        throw;  // reported as unfinished work
    } catch (const std::exception& e) {
        how = ended::other;
        what = e.what();
    }
    how = observe("how it ended", how);
    what = observe("what it threw", what);
    if (how == ended::normally) ADD_FAILURE() << advice_if_accepted;
    if (how == ended::other) ADD_FAILURE() << "threw an exception other than std::invalid_argument: " << what;
    if (how != ended::invalid_argument) return {};
    if (what.find(what_should_say) == std::string::npos)
        ADD_FAILURE() << fmt::format("the exception's message should say \"{}\", but it says: {}",
                                     what_should_say, what);
    return what;
}

// Host memory from malloc, pinned in place with cudaHostRegister for as long
// as this object lives.
class registered_buffer {
public:
    explicit registered_buffer(std::size_t n) : n_(n) {
        const std::size_t page = 4096;
        const std::size_t bytes = (n * sizeof(float) + page - 1) / page * page;
        memory_.reset(static_cast<float*>(std::aligned_alloc(page, bytes)));
        if (!memory_) throw std::bad_alloc();
        CUDA_CHECK(cudaHostRegister(memory_.get(), bytes, cudaHostRegisterDefault));
    }
    ~registered_buffer() { cudaHostUnregister(memory_.get()); }
    registered_buffer(const registered_buffer&) = delete;
    registered_buffer& operator=(const registered_buffer&) = delete;
    float* data() { return memory_.get(); }
    std::size_t size() const { return n_; }

private:
    struct free_memory {
        void operator()(float* p) const noexcept { std::free(p); }
    };
    std::size_t n_;
    std::unique_ptr<float, free_memory> memory_;
};

// The kernel alone: device in, device out.
void check_transform(std::size_t n) {
    SCOPED_TRACE(fmt::format("n = {}", n));
    const auto in = random_input(n, "in");
    guarded_output<float> out(n);
    lesson05::transform(in.view(), out.view(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    // launch_1d{0}: the block size is the student's choice, so no block pattern is read.
    expect_matches(out, reference(in.host.data(), n), kepler_tolerance, launch_1d{0});
    expect_guard_untouched(out);
    expect_unchanged(in);
}

// The call of the ten whose span on the GPU is the median.
const course::testing::gpu_repetition& median_call(const course::testing::gpu_record& record) {
    std::vector<const course::testing::gpu_repetition*> calls;
    for (const auto& r : record.repetitions) calls.push_back(&r);
    std::sort(calls.begin(), calls.end(), [](auto* a, auto* b) { return a->span() < b->span(); });
    return *calls[calls.size() / 2];
}

std::string ms_of(std::uint64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }

}  // namespace

GRADED_TEST(Transform, MatchesReference, 2, "the Kepler kernel alone: 1, 129 and 100,003 elements, and in place") {
    for (std::size_t n : {1, 129, 100003}) check_transform(n);

    SCOPED_TRACE("in place: in and out are the same memory");
    const std::vector<float> values = course::random_floats(4099, course::derive_seed(seed(), "in place"));
    auto data = course::device_array<float>::from_host(values);
    lesson05::transform(data.view(), data.view(), nullptr);
    const std::vector<float> actual = observe_same_size("in place", data.to_host());
    const course::comparison c = course::compare(actual, reference(values.data(), values.size()), kepler_tolerance);
    if (!c.ok())
        ADD_FAILURE() << describe_mismatch(c.examples.front()) << "\n" << c.summary()
                      << "\nin place, each thread must read its input before it stores its result";
}

GRADED_TEST(Serial, MatchesReference, 1, "serial version: 2^20 + 7 elements") {
    constexpr std::size_t n = (std::size_t{1} << 20) + 7;
    const pinned_input in(n, "host_in");
    pinned_output out(n);
    lesson05::serial_transform(in.data(), out.data(), n);
    expect_transformed(in, out, 1);
}

GRADED_STREAM_TEST(Pipeline, EmptyInput, 1, "n = 0 does nothing (and does not look at the pointers)") {
    // What each call threw, if anything, is the evidence.
    const auto thrown = [](const std::function<void()>& call) {
        std::string what;
        try {
            call();
        } catch (const course::not_implemented&) {
            throw;  // reported as unfinished work
        } catch (const std::exception& e) {
            what = e.what();
            if (what.empty()) what = "an exception";
        }
        return observe("what it threw", what);
    };
    const std::string pipelined = thrown([] { lesson05::pipelined_transform(nullptr, nullptr, 0, 4, 8); });
    EXPECT_TRUE(pipelined.empty()) << "pipelined_transform with n = 0 threw: " << pipelined;
    const std::string serial = thrown([] { lesson05::serial_transform(nullptr, nullptr, 0); });
    EXPECT_TRUE(serial.empty()) << "serial_transform with n = 0 threw: " << serial;
}

GRADED_STREAM_TEST(Pipeline, OneStreamOneChunk, 1, "1 stream, 1 chunk (the serial shape): 100,000 elements") {
    check_pipeline(100000, 1, 1);
}

GRADED_STREAM_TEST(Pipeline, OneToEightStreams, 3, "1 to 8 streams, 16 chunks: 2^20 + 13 elements") {
    for (int streams = 1; streams <= 8; ++streams) check_pipeline((std::size_t{1} << 20) + 13, streams, 16);
}

GRADED_STREAM_TEST(Pipeline, UnevenChunks, 2, "n not divisible by the number of chunks, and fewer elements than chunks") {
    check_pipeline(1000003, 3, 7);
    check_pipeline(65537, 4, 4);
    check_pipeline(5, 2, 8);
    check_pipeline(1, 4, 3);
}

GRADED_STREAM_TEST(Pipeline, MoreStreamsThanChunks, 1, "8 streams, 3 chunks") { check_pipeline(300001, 8, 3); }

GRADED_STREAM_TEST(Pipeline, Large, 2, "2^24 + 11 elements, 4 streams, 12 chunks") {
    check_pipeline((std::size_t{1} << 24) + 11, 4, 12);
}

GRADED_STREAM_TEST(Pipeline, RejectsBadArguments, 1, "0 streams or 0 chunks is an std::invalid_argument") {
    const pinned_input in(16, "host_in");
    pinned_output out(16);
    for (const auto& [streams, chunks] : {std::pair{0, 4}, std::pair{4, 0}, std::pair{-1, 4}}) {
        SCOPED_TRACE(fmt::format("{} streams, {} chunks", streams, chunks));
        expect_invalid_argument([&] { lesson05::pipelined_transform(in.data(), out.data(), 16, streams, chunks); },
                                "",
                                "returned normally: a pipeline needs at least one stream and one chunk, "
                                "throw std::invalid_argument otherwise");
    }
}

GRADED_STREAM_TEST(Pinned, PageableRejected, 2, "pageable host memory is refused, with the reason and the fix") {
    constexpr std::size_t n = 4096;
    const pinned_input in(n, "host_in");
    pinned_output out(n);
    std::vector<float> pageable_in = in.values, pageable_out(n);
    const auto accepted = [](const char* name) {
        return fmt::format(
            "pipelined_transform accepted pageable host memory as {}, from a std::vector. Copies "
            "from pageable memory are staged by the CPU through a driver buffer and may hold the "
            "host in each copy: the pipeline silently loses most of its overlap. Ask "
            "cudaPointerGetAttributes: pinned memory reports cudaMemoryTypeHost, pageable "
            "cudaMemoryTypeUnregistered; throw "
            "std::invalid_argument naming the fix (course::pinned_array or cudaHostRegister).",
            name);
    };
    std::string refusal;
    {
        SCOPED_TRACE("host_in pageable");
        refusal = expect_invalid_argument([&] { lesson05::pipelined_transform(pageable_in.data(), out.data(), n, 4, 8); },
                                          "host_in", accepted("host_in"));
        EXPECT_TRUE(out.untouched()) << "host_out was written although host_in was refused: check both "
                                        "pointers before queueing anything";
    }
    {
        SCOPED_TRACE("host_out pageable");
        expect_invalid_argument([&] { lesson05::pipelined_transform(in.data(), pageable_out.data(), n, 4, 8); },
                                "host_out", accepted("host_out"));
    }
    // The message of the first refusal, as recorded above (empty if there was none).
    if (!refusal.empty()) {
        EXPECT_NE(refusal.find("pinned"), std::string::npos)
            << "the message should say that the memory must be pinned; it says: " << refusal;
        EXPECT_TRUE(refusal.find("pinned_array") != std::string::npos ||
                    refusal.find("cudaHostRegister") != std::string::npos ||
                    refusal.find("cudaMallocHost") != std::string::npos)
            << "the message should name the fix (course::pinned_array, cudaMallocHost or "
               "cudaHostRegister); it says: "
            << refusal;
    }
}

GRADED_STREAM_TEST(Pinned, RegisteredAccepted, 1, "memory pinned with cudaHostRegister is accepted: 10,007 elements") {
    constexpr std::size_t n = 10007;
    const pinned_input in(n, "host_in");
    registered_buffer host_in(n), host_out(n);
    std::copy(in.values.begin(), in.values.end(), host_in.data());
    std::fill(host_out.data(), host_out.data() + n, std::nanf(""));
    lesson05::pipelined_transform(host_in.data(), host_out.data(), n, 3, 5);
    const std::vector<float> actual =
        observe_same_size("host_out", std::vector<float>(host_out.data(), host_out.data() + n));
    const course::comparison c = course::compare(actual, reference(in.values.data(), n), kepler_tolerance);
    EXPECT_TRUE(c.ok()) << (c.examples.empty() ? std::string{} : describe_mismatch(c.examples.front()))
                        << "\n" << c.summary();
}

GRADED_PERF_TEST_STREAMS(PipelinePerf, FourStreamsOverlap, 3,
                         "256 MiB, 4 streams: copies and kernels overlap on the GPU, 1.3x or more") {
    const course::device_properties device = course::query_device();
    if (device.copy_engines < 2)
        GTEST_SKIP() << fmt::format(
            "{} has {} copy engine(s) (asyncEngineCount): copies to and from the GPU cannot run at "
            "the same time here, so the pipeline's overlap is not graded on this GPU",
            device.summary(), device.copy_engines);

    // 256 MiB each way where the GPU has room for what the judge keeps on it
    // at once: the replay's chunk buffers, its copy of the output and the
    // rounding's scale, and the yardstick's whole array.
    // (elements_that_fit: the same size in the student's program and the judge.)
    const std::size_t n = course::testing::elements_that_fit(std::size_t{1} << 26, 4, sizeof(float));
    constexpr int streams = 4, chunks = 16;
    constexpr double needed = 1.3;

    // Pinned, so the GPU reads and writes them in place: the harness fills
    // the input afresh before each call and reads the output at positions
    // drawn after it (timed_calls.hpp), on the GPU.
    course::pinned_array<float> in(n), out(n);
    const course::device_span<float> input(in.data(), n), output(out.data(), n);
    timed_calls work;
    work.name = "pipelined_transform";
    work.repetitions = 10;
    work.fresh_inputs = [&](std::uint64_t seed, cudaStream_t stream) { fill_fresh(input, seed, stream); };
    work.call = [&](cudaStream_t) { lesson05::pipelined_transform(in.data(), out.data(), n, streams, chunks); };
    work.output = output;
    // The judge replays each call on its own copies of these, on streams of
    // its own in the recorded order (time_pipeline).
    work.arrays = {input, output};
    // The yardstick, in the judge: the same work one step after another on
    // one stream (one copy in, the reference's kernel, one copy out), into
    // device memory made at its first (untimed) call, as the replay's is.
    std::optional<course::device_array<float>> whole;
    timed_calls serial = work;
    serial.name = "one step after another";
    serial.call = [&](cudaStream_t stream) {
        if (!whole) whole.emplace(n);
        CUDA_CHECK(cudaMemcpyAsync(whole->data(), in.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
        lesson05::transform(whole->view(), whole->view(), stream);
        CUDA_CHECK(cudaMemcpyAsync(out.data(), whole->data(), n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    };
    const std::optional<course::testing::pipeline_times> times = course::testing::time_pipeline(work, serial);
    if (!times) {
        if (current_evidence_mode() == evidence_mode::off)
            GTEST_SKIP() << "this build has no GPU recorder (CUPTI was not found with the toolkit), and the "
                            "overlap is read from the GPU's record of the calls";
        return;  // the judge decides, or the test has failed with what was seen
    }

    const course::testing::gpu_repetition& call = median_call(*times->record);
    const gpu_overlap o = analyse_overlap(call);
    const std::uint64_t bytes = n * sizeof(float);
    if (o.bytes_in != bytes || o.bytes_out != bytes) {
        ADD_FAILURE() << fmt::format(
            "the GPU's record of a call shows {} bytes copied to the GPU and {} copied back, in {} and {} copies; "
            "the pipeline moves each of the n = {} elements in once and out once: {} bytes each way. The "
            "overlap is only graded on that work.",
            course::with_commas(o.bytes_in), course::with_commas(o.bytes_out), o.copies_in, o.copies_out,
            course::with_commas(n), course::with_commas(bytes));
        return;
    }
    std::string message;
    double factor = 0;
    // What every branch's figure is held to, and why it can be reached here.
    const std::string needed_words = fmt::format(
        "{:.1f}x is needed (this GPU has {} copy engines, so a copy in, a kernel and a copy out of different chunks "
        "can all run at once).",
        needed, device.copy_engines);
    if (times->replay_ms && times->one_after_another_ms) {
        // The judge's figure: its replay of the calls against the same work
        // one step after another, both timed by the judge in this run.
        const double pipelined = *times->replay_ms, serial_ms = *times->one_after_another_ms;
        factor = serial_ms / pipelined;
        message = fmt::format(
            "the judge replayed each of {} calls with {} streams and {} chunks ({} MiB each way) from your kernels, "
            "on streams of its own in the order your call gave them (its events and waits): the median took {:.2f} ms "
            "on the GPU. The same work one step after another (one copy in, one kernel, one copy out, on one stream) "
            "took {:.2f} ms: {:.2f}x; {}",
            work.repetitions, streams, chunks, bytes >> 20, pipelined, serial_ms, factor, needed_words);
        course::testing::report_figure(fmt::format("{:.2f}x ({:.2f} ms replayed by the judge against {:.2f} ms one "
                                                   "step after another); {:.1f}x is needed",
                                                   factor, pipelined, serial_ms, needed));
    } else if (times->one_after_another_ms) {
        // The judge could not replay the calls: the span is the GPU's record
        // of the median call, the yardstick still the judge's own, so that
        // only the pipeline's work, overlapped, can shorten the ratio
        // (TRUST.md, item 9). A record that claims no span earns nothing.
        const double span_ms = static_cast<double>(o.span) / 1e6, serial_ms = *times->one_after_another_ms;
        factor = span_ms > 0 ? serial_ms / span_ms : 0;
        message = fmt::format(
            "the judge could not replay your calls ({}), so their time is the GPU's record of the median of {} "
            "calls with {} streams and {} chunks ({} MiB each way): {} from its first work to its last (copies in "
            "{}, kernels {}, copies out {}). The same work one step after another (one copy in, one kernel, one "
            "copy out, on one stream), timed by the judge, took {:.2f} ms: {:.2f}x; {}",
            times->not_replayed, work.repetitions, streams, chunks, bytes >> 20, ms_of(o.span), ms_of(o.copy_in),
            ms_of(o.kernels), ms_of(o.copy_out), serial_ms, factor, needed_words);
        course::testing::report_figure(fmt::format("{:.2f}x ({} on the GPU's record against {:.2f} ms one step "
                                                   "after another, timed by the judge); {:.1f}x is needed",
                                                   factor, ms_of(o.span), serial_ms, needed));
    } else {
        // Anywhere but the judge (a test program run by hand): the GPU's
        // record of this process's own calls.
        factor = o.factor();
        message = fmt::format(
            "the GPU's record of the median of {} calls with {} streams and {} chunks ({} MiB each way): copies in "
            "{}, kernels {}, copies out {}: {} one after another. The call took {} on the GPU, an overlap of "
            "{:.2f}x; {}",
            work.repetitions, streams, chunks, bytes >> 20, ms_of(o.copy_in), ms_of(o.kernels), ms_of(o.copy_out),
            ms_of(o.copy_in + o.kernels + o.copy_out), ms_of(o.span), factor, needed_words);
        course::testing::report_figure(fmt::format("{:.2f}x overlap ({} on the GPU against {} one after another); "
                                                   "{:.1f}x is needed",
                                                   factor, ms_of(o.span), ms_of(o.copy_in + o.kernels + o.copy_out),
                                                   needed));
    }
    RecordProperty("overlap", fmt::format("{:.2f}", factor));
    const std::vector<std::string> causes = what_serialised(o);
    if (causes.empty())
        message += "\nThe record shows no single cause: `grader run lesson05 --timeline` draws it.";
    for (const auto& cause : causes) message += "\nWhat the record shows: " + cause;
    if (factor < needed) ADD_FAILURE() << message;
}
