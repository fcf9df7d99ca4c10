// Graded tests for lesson02 (doublify: 2D blocks and grids, pitched memory).
// Each GRADED_TEST carries its points and the title the report shows.
//
// Every matrix sits in a guarded_matrix: poisoned guards before and after it
// and, where its pitch is larger than its width, poisoned padding after each
// row. Outputs start poisoned (NaN) too, so an element never written shows.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "course/benchmark.hpp"
#include "course/device_array.hpp"
#include "course/device_info.hpp"
#include "course/cuda_error.hpp"
#include "course/random.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/expect_2d.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/stream_order.hpp"
#include "doublify.cuh"

namespace {

using namespace course::testing;

// The affine map under test: out = 1.5 a - 0.25. Nothing special about the
// numbers, except that the result is neither a copy nor a doubling.
constexpr float scale = 1.5f;
constexpr float shift = -0.25f;

// Doubling a float is exact. s * a + t rounds once (a fused multiply-add) or
// twice, each time by at most half an ulp of a number below 2 (6e-8): 1e-6
// absolute leaves room for that and nothing more.
constexpr course::tolerance exact{0.0, 0.0};
constexpr course::tolerance affine_tolerance{0.0, 1e-6};

const in_place_update doubling{[](double x) { return 2.0 * x; }, "doubled"};

// rows x cols floats in [-1, 1), drawn from this test's seed and the name.
std::vector<float> random_matrix(std::size_t rows, std::size_t cols, const char* name) {
    return course::random_floats(rows * cols, course::derive_seed(seed(), name));
}

launch_2d launch_of(dim3 block) { return {block.x, block.y}; }

std::string describe(std::size_t rows, std::size_t cols, std::size_t pitch) {
    return pitch == 0 || pitch == cols
               ? fmt::format("{} x {} matrix", rows, cols)
               : fmt::format("{} x {} matrix, rows {} elements apart", rows, cols, pitch);
}

// Doubles a random rows x cols matrix in place with the student's doublify
// and checks everything a right answer implies: each element doubled exactly
// once, nothing written outside the matrix.
void check_doublify(std::size_t rows, std::size_t cols, dim3 block, std::size_t pitch = 0) {
    SCOPED_TRACE(fmt::format("doublify, {}, {} x {} blocks", describe(rows, cols, pitch), block.x,
                             block.y));
    guarded_matrix<float> a(rows, cols, pitch, after_the_matrix::poison, "a");
    const std::vector<float> original = random_matrix(rows, cols, "a");
    a.fill(original);

    lesson02::doublify(a.view(), block);
    CUDA_CHECK(cudaDeviceSynchronize());

    expect_updated_in_place(a, original, doubling, exact, launch_of(block));
    expect_guard_untouched(a);
}

// out = s * a + t into a poisoned output; a must come out unchanged.
void check_affine(std::size_t rows, std::size_t cols, dim3 block, std::size_t a_pitch = 0,
                  std::size_t out_pitch = 0) {
    SCOPED_TRACE(fmt::format("affine, a: {}, out: {}, {} x {} blocks", describe(rows, cols, a_pitch),
                             describe(rows, cols, out_pitch), block.x, block.y));
    // The input ends where mapped memory ends: a read below its last row faults.
    guarded_matrix<float> a(rows, cols, a_pitch, after_the_matrix::unmapped, "a");
    const std::vector<float> values = random_matrix(rows, cols, "a");
    a.fill(values);
    guarded_matrix<float> out(rows, cols, out_pitch);

    lesson02::affine(std::as_const(a).view(), scale, shift, out.view(), block);
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<double> expected(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        expected[i] = double{scale} * double{values[i]} + double{shift};
    expect_matches_2d(out, expected, affine_tolerance, launch_of(block));
    expect_guard_untouched(out);
    expect_unchanged(a, values, "a");
}

// The stream checks (stream_order.hpp): a rows x cols matrix on a
// non-blocking stream with work queued ahead of the call. Dense matrices: the
// pitch has tests of its own.
constexpr std::size_t stream_rows = 513, stream_cols = 1027;
const dim3 stream_block(32, 8);
constexpr const char* pass_the_stream = "launch with `<<<grid, block, 0, stream>>>`";

const dim3 every_block_shape[] = {dim3(32, 8), dim3(8, 32), dim3(16, 16), dim3(32, 32)};

// Host buffers for the pitched_matrix tests: every byte starts as 0xFF (a NaN
// for floats), so host padding that a copy overwrites shows.
std::vector<float> poisoned_host(std::size_t n) {
    std::vector<float> host(n);
    std::memset(host.data(), 0xFF, n * sizeof(float));
    return host;
}

bool poisoned(float x) {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &x, sizeof x);
    for (unsigned char b : bytes)
        if (b != 0xFF) return false;
    return true;
}

}  // namespace

// ---------------------------------------------------------------------------
// Part 1: doublify, in place.

GRADED_TEST(Doublify, Seed4x4, 1, "the PyCUDA seed: a 4 x 4 matrix, one 4 x 4 block") {
    check_doublify(4, 4, dim3(4, 4));
}

GRADED_TEST(Doublify, SingleElement, 1, "a 1 x 1 matrix, 16 x 16 blocks") {
    check_doublify(1, 1, dim3(16, 16));
}

GRADED_TEST(Doublify, EmptyMatrices, 1, "0 x 17, 17 x 0 and 0 x 0 launch nothing and write nothing") {
    for (const auto& [rows, cols] : {std::pair{0, 17}, std::pair{17, 0}, std::pair{0, 0}}) {
        SCOPED_TRACE(describe(rows, cols, 0));
        guarded_matrix<float> a(rows, cols);
        guarded_matrix<float> out(rows, cols);
        std::string thrown;  // empty: nothing was thrown
        try {
            lesson02::doublify(a.view(), dim3(16, 16));
            lesson02::affine(std::as_const(a).view(), scale, shift, out.view(), dim3(16, 16));
            CUDA_CHECK(cudaDeviceSynchronize());
        } catch (const course::cuda_error& e) {
            thrown = e.what();
        }
        // Whether the calls threw is evidence: it decides what is checked next.
        thrown = observe("error thrown", std::move(thrown));
        if (!thrown.empty()) {
            ADD_FAILURE() << thrown
                          << "\nan empty matrix needs no kernel, and a grid with 0 blocks on an "
                             "axis is an invalid launch: return early when the matrix is empty()";
            continue;
        }
        expect_guard_untouched(a);
        expect_guard_untouched(out);
    }
}

GRADED_TEST(Doublify, NonSquare, 2, "17 x 33: partial blocks on both axes (16 x 16 and 32 x 8 blocks)") {
    check_doublify(17, 33, dim3(16, 16));
    check_doublify(17, 33, dim3(32, 8));
}

GRADED_TEST(Doublify, SingleColumn, 1, "a 1000 x 1 matrix: one column") {
    check_doublify(1000, 1, dim3(16, 16));
    check_doublify(1000, 1, dim3(32, 8));
}

GRADED_TEST(Doublify, SingleRow, 1, "a 1 x 1000 matrix: one row") {
    check_doublify(1, 1000, dim3(16, 16));
    check_doublify(1, 1000, dim3(32, 8));
}

GRADED_TEST(Doublify, Large, 2, "2049 x 2047, 16 x 16 blocks") { check_doublify(2049, 2047, dim3(16, 16)); }

GRADED_TEST(Doublify, EveryBlockShape, 2,
            "300 x 500 with blocks 32 x 8, 8 x 32, 16 x 16, 32 x 32: each element doubled once") {
    for (const dim3 block : every_block_shape) check_doublify(300, 500, block);
}

GRADED_STREAM_TEST(Doublify, HonoursStream, 1,
            "honours a non-blocking stream with work queued ahead (513 x 1027)") {
    course::device_array<float> a(stream_rows * stream_cols);
    const course::device_span_2d<float> matrix(a.data(), stream_rows, stream_cols);
    stream_order_check check;
    check.call_name = "doublify";
    check.right_way = pass_the_stream;
    check.inputs = {random_stream_input(a.view(), "a")};
    check.call = [=](cudaStream_t s) { lesson02::doublify(matrix, stream_block, s); };
    check.output = a.view();  // in place
    check.expected = [](const std::vector<std::vector<float>>& v) {
        std::vector<double> doubled(v[0].begin(), v[0].end());
        for (double& x : doubled) x *= 2.0;
        return doubled;
    };
    check.tol = exact;
    expect_honours_stream(check);
}

GRADED_TEST(Doublify, RejectsOversizedBlock, 1, "a 64 x 32 block (2048 threads) is reported as an error") {
    guarded_matrix<float> a(64, 64);
    a.fill(random_matrix(64, 64, "a"));
    expect_launch_refused([&] { lesson02::doublify(a.view(), dim3(64, 32)); },
                          "doublify with 64 x 32 blocks");
}

// ---------------------------------------------------------------------------
// Part 1: affine, out of place.

GRADED_TEST(Affine, NonSquare, 2, "out = s * a + t, 17 x 33, into a poisoned output") {
    check_affine(17, 33, dim3(16, 16));
    check_affine(17, 33, dim3(32, 8));
}

GRADED_TEST(Affine, ThinMatrices, 1, "out = s * a + t, 1000 x 1 and 1 x 1000") {
    check_affine(1000, 1, dim3(32, 8));
    check_affine(1, 1000, dim3(32, 8));
}

GRADED_TEST(Affine, EveryBlockShape, 2, "out = s * a + t, 300 x 500, blocks 32 x 8, 8 x 32, 16 x 16, 32 x 32") {
    for (const dim3 block : every_block_shape) check_affine(300, 500, block);
}

GRADED_TEST(Affine, Large, 1, "out = s * a + t, 2049 x 2047, 32 x 8 blocks") {
    check_affine(2049, 2047, dim3(32, 8));
}

GRADED_STREAM_TEST(Affine, HonoursStream, 1,
            "honours a non-blocking stream with work queued ahead (513 x 1027)") {
    course::device_array<float> a(stream_rows * stream_cols), out(stream_rows * stream_cols);
    const course::device_span_2d<const float> in(a.data(), stream_rows, stream_cols);
    const course::device_span_2d<float> result(out.data(), stream_rows, stream_cols);
    stream_order_check check;
    check.call_name = "affine";
    check.right_way = pass_the_stream;
    check.inputs = {random_stream_input(a.view(), "a")};
    check.call = [=](cudaStream_t s) { lesson02::affine(in, scale, shift, result, stream_block, s); };
    check.output = out.view();
    check.expected = [](const std::vector<std::vector<float>>& v) {
        std::vector<double> expected(v[0].size());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = double{scale} * double{v[0][i]} + double{shift};
        return expected;
    };
    check.tol = affine_tolerance;
    expect_honours_stream(check);
}

// ---------------------------------------------------------------------------
// Part 2: pitched memory.

GRADED_TEST(Pitched, DoublifyHonoursPitch, 2,
            "doublify on padded rows: 17 x 33 with pitch 40, 300 x 500 with pitch 512") {
    check_doublify(17, 33, dim3(16, 16), 40);
    check_doublify(300, 500, dim3(32, 8), 512);
}

GRADED_TEST(Pitched, AffineHonoursPitch, 2, "affine between matrices whose pitches differ") {
    check_affine(17, 33, dim3(32, 8), 40, 64);
    check_affine(300, 500, dim3(16, 16), 512, 501);
}

GRADED_TEST(Pitched, MatrixAllocation, 1, "pitched_matrix allocates with cudaMallocPitch") {
    const std::size_t rows = 17, cols = 33;
    // What cudaMallocPitch chooses for rows of 33 floats (132 bytes) here.
    std::size_t expected_pitch = 0;
    void* probe = nullptr;
    CUDA_CHECK(cudaMallocPitch(&probe, &expected_pitch, cols * sizeof(float), rows));
    CUDA_CHECK(cudaFree(probe));

    lesson02::pitched_matrix m(rows, cols);
    EXPECT_EQ(observe("rows()", m.rows()), rows);
    EXPECT_EQ(observe("cols()", m.cols()), cols);
    EXPECT_EQ(observe("pitch_bytes()", m.pitch_bytes()), expected_pitch) << fmt::format(
        "cudaMallocPitch gives rows of {} bytes a pitch of {} bytes on this GPU. Allocate with "
        "cudaMallocPitch(&ptr, &pitch_bytes_, cols * sizeof(float), rows) and keep the pitch it "
        "reports: a plain cudaMalloc has no padding, and the pitch is in bytes",
        cols * sizeof(float), expected_pitch);

    const course::device_span_2d<float> v = m.view();
    const float* const data = observe("view().data()", v.data());
    ASSERT_NE(data, nullptr) << "view().data() is null: was the allocation handed to memory_?";
    EXPECT_EQ(observe("view().rows()", v.rows()), rows);
    EXPECT_EQ(observe("view().cols()", v.cols()), cols);
    const std::size_t pitch = observe("view().pitch()", v.pitch());
    EXPECT_EQ(pitch, expected_pitch / sizeof(float)) << fmt::format(
        "view().pitch() counts elements, not bytes: pitch_bytes() / sizeof(float) = {}",
        expected_pitch / sizeof(float));
    const course::device_span_2d<const float> cv = std::as_const(m).view();
    EXPECT_EQ(observe("view() const data()", cv.data()), data)
        << "view() and view() const must show the same memory";
    EXPECT_EQ(observe("view() const pitch()", cv.pitch()), pitch)
        << "view() and view() const must have the same pitch";
    // Where the memory lives is asked of this process's own pointer (a
    // recorded address means nothing here); the answer is the evidence.
    cudaPointerAttributes attributes = {};
    CUDA_CHECK(cudaPointerGetAttributes(&attributes, v.data()));
    EXPECT_EQ(observe("memory type", attributes.type), cudaMemoryTypeDevice)
        << "the matrix must live in device memory";

    lesson02::pitched_matrix empty(0, 5);
    EXPECT_TRUE(observe("0 x 5 view is empty", empty.view().empty())) << "a 0 x 5 matrix has an empty view";
    EXPECT_EQ(observe("0 x 5 pitch_bytes()", empty.pitch_bytes()), 0u)
        << "a 0 x 5 matrix allocates nothing: pitch_bytes() is 0";
}

GRADED_TEST(Pitched, CopiesRoundTrip, 1, "cudaMemcpy2D there and back, between different host and device pitches") {
    const std::size_t rows = 17, cols = 33, in_pitch = 40, out_pitch = 37;
    const std::vector<float> values = random_matrix(rows, cols, "a");
    // The host matrix is padded too: 40 floats from one row's start to the next.
    std::vector<float> host_in = poisoned_host(rows * in_pitch);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) host_in[r * in_pitch + c] = values[r * cols + c];

    lesson02::pitched_matrix m(rows, cols);
    m.copy_from_host(host_in.data(), in_pitch);

    // Read the device matrix directly: row r must start r * pitch_bytes() in.
    std::vector<float> on_device(rows * cols);
    CUDA_CHECK(cudaMemcpy2D(on_device.data(), cols * sizeof(float), m.view().data(), m.pitch_bytes(),
                            cols * sizeof(float), rows, cudaMemcpyDeviceToHost));
    on_device = observe("device matrix after copy_from_host", std::move(on_device));
    ASSERT_EQ(on_device.size(), values.size());
    for (std::size_t i = 0; i < on_device.size(); ++i) {
        if (std::memcmp(&on_device[i], &values[i], sizeof(float)) == 0) continue;
        ADD_FAILURE() << fmt::format(
            "after copy_from_host, device element (row {}, col {}) is {:.6g}, expected {:.6g}.\n"
            "In cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind) the pitches are in "
            "bytes: pitch_bytes() on the device, host_pitch * sizeof(float) on the host; the width "
            "is the bytes of one row's data, cols * sizeof(float)",
            i / cols, i % cols, on_device[i], values[i]);
        break;
    }

    // A host buffer with a different pitch and a guard after its last row.
    std::vector<float> host_out = poisoned_host(rows * out_pitch + 64);
    const std::size_t host_out_size = host_out.size();
    m.copy_to_host(host_out.data(), out_pitch);
    host_out = observe("host matrix after copy_to_host", std::move(host_out));
    ASSERT_EQ(host_out.size(), host_out_size);
    bool reported_value = false, reported_padding = false;
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < out_pitch; ++c) {
            const float got = host_out[r * out_pitch + c];
            if (c < cols && !reported_value && std::memcmp(&got, &values[r * cols + c], sizeof got) != 0) {
                reported_value = true;
                ADD_FAILURE() << fmt::format(
                    "after copy_to_host with a host pitch of {}, element (row {}, col {}) is {:.6g}, "
                    "expected {:.6g}: the host pitch is host_pitch * sizeof(float) bytes",
                    out_pitch, r, c, got, values[r * cols + c]);
            }
            if (c >= cols && !reported_padding && !poisoned(got)) {
                reported_padding = true;
                ADD_FAILURE() << fmt::format(
                    "copy_to_host wrote the host's padding (row {}, col {}): the width of "
                    "cudaMemcpy2D is the data in one row, cols * sizeof(float), not a pitch",
                    r, c);
            }
        }
    }
    for (std::size_t i = rows * out_pitch; i < host_out.size(); ++i) {
        if (poisoned(host_out[i])) continue;
        ADD_FAILURE() << "copy_to_host wrote past the end of the host matrix: the height of "
                         "cudaMemcpy2D is rows(), the width cols() * sizeof(float)";
        break;
    }
}

GRADED_TEST(Pitched, DoublifyPitchedMatrix, 2, "upload a pitched_matrix, doublify it on the GPU, download it") {
    const dim3 block(32, 8);
    for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{17, 33}, {257, 1000}}) {
        SCOPED_TRACE(fmt::format("pitched_matrix of {} x {}, 32 x 8 blocks", rows, cols));
        const std::vector<float> original = random_matrix(rows, cols, "a");
        lesson02::pitched_matrix m(rows, cols);
        // Poison the padding, so that a kernel writing there is seen.
        CUDA_CHECK(cudaMemset2D(m.view().data(), m.pitch_bytes(), 0xFF, m.pitch_bytes(), rows));
        m.copy_from_host(original.data(), cols);

        lesson02::doublify(m.view(), block);
        CUDA_CHECK(cudaDeviceSynchronize());

        std::vector<float> result(rows * cols);
        m.copy_to_host(result.data(), cols);
        result = observe("result", std::move(result));
        // The pitch shapes the diagnosis: the one the student's matrix reports.
        const layout_2d layout{rows, cols, observe("pitch_bytes()", m.pitch_bytes()) / sizeof(float)};
        expect_updated_in_place(result, layout, original, doubling, exact, launch_of(block));

        // The padding after each row must still hold the poison. This reads
        // the matrix in this process with its own pitch; what it finds is the
        // evidence.
        const std::size_t pitch = m.pitch_bytes() / sizeof(float);
        std::vector<float> whole(rows * pitch);
        CUDA_CHECK(cudaMemcpy(whole.data(), m.view().data(), whole.size() * sizeof(float),
                              cudaMemcpyDeviceToHost));
        guard_report guard;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = cols; c < pitch; ++c)
                if (!poisoned(whole[r * pitch + c]) && guard.padding++ == 0) {
                    guard.padding_row = r;
                    guard.padding_col = c;
                }
        guard = observe("padding writes", guard);
        if (!guard.clean()) ADD_FAILURE() << describe_guard_writes(guard, layout);
    }
}

// ---------------------------------------------------------------------------
// Performance.

GRADED_PERF_TEST(Doublify, Bandwidth, 2,
                 "8192 x 8192, 32 x 8 blocks: bandwidth >= 40% of this GPU's copy bandwidth") {
    const std::size_t rows = 8192, cols = 8192, n = rows * cols;
    course::device_array<float> a(n);
    const course::device_span_2d<float> view(a.data(), rows, cols);

    course::testing::timed_calls work;
    work.name = "doublify 8192 x 8192";
    // In place: each call doubles new values.
    work.fresh_inputs = [&](std::uint64_t seed, cudaStream_t s) { course::testing::fill_fresh(a.view(), seed, s); };
    work.call = [&](cudaStream_t stream) { lesson02::doublify(view, dim3(32, 8), stream); };
    work.output = a.view();
    work.arrays = {a.view()};
    expect_bandwidth_share(
        work, 2.0 * n * sizeof(float),  // every element read once and written once
        n * sizeof(float), 0.40,
        "With 32 x 8 blocks the 32 threads of a warp share one row: if threadIdx.x picks the "
        "column, their 32 floats lie side by side and arrive in one 128-byte transaction. If it "
        "picks the row, each thread reads a different row and the warp needs 32 transactions. "
        "The plain kernel, one element per thread with threadIdx.x along the row, reaches about 57% "
        "on an H200; four rows per thread (\"Going further\") reach the copy's speed.");
}
