// The overlap of a call's copies and kernels, worked out from the GPU's
// record (course/testing/gpu_overlap.hpp), and what it says serialised them.
// lesson05's grade rests on these numbers, and its failure messages on these
// sentences: each must follow from the record, never be guessed.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "course/testing/gpu_overlap.hpp"

namespace {

using namespace course::testing;

std::string api(const std::string& name, int corr, int start, int end) {
    return R"({"api":")" + name + R"(","corr":)" + std::to_string(corr) + R"(,"start":)" + std::to_string(start) +
           R"(,"end":)" + std::to_string(end) + "}\n";
}

std::string work_fields(int corr, int stream, int start, int end) {
    return R"("corr":)" + std::to_string(corr) + R"(,"stream":)" + std::to_string(stream) + R"(,"context":1,"start":)" +
           std::to_string(start) + R"(,"end":)" + std::to_string(end) + "}\n";
}

// A copy in ("HtoD") or out ("DtoH") of 1000 bytes, with its API call just before it.
std::string copy(const char* kind, const char* host_memory, int corr, int stream, int start, int end) {
    const bool in = std::string(kind) == "HtoD";
    return api("cudaMemcpyAsync_v3020", corr, start - 5, start - 4) + R"({"copy":")" + kind + R"(","from":")" +
           (in ? host_memory : "device") + R"(","to":")" + (in ? "device" : host_memory) + R"(","bytes":1000,)" +
           work_fields(corr, stream, start, end);
}

std::string kernel(int corr, int stream, int start, int end) {
    return api("cudaLaunchKernel_v7000", corr, start - 5, start - 4) + R"({"kernel":"k",)" +
           work_fields(corr, stream, start, end);
}

// One call, marked from 0 to 100000, around `body`.
gpu_repetition one_call(const std::string& body) {
    const std::string text = R"({"record":"course-gpu-record","version":1,"nonce":"n"})"
                             "\n"
                             R"({"mark":"begin","rep":0,"t":1})"
                             "\n" +
                             body +
                             R"({"mark":"end","rep":0,"t":100000})"
                             "\n"
                             R"({"complete":true})"
                             "\n";
    std::string why;
    const auto record = parse_gpu_record(text, why);
    EXPECT_TRUE(record) << why;
    return record && !record->repetitions.empty() ? record->repetitions.front() : gpu_repetition{};
}

bool mentions(const std::vector<std::string>& sentences, const std::string& words) {
    for (const auto& s : sentences)
        if (s.find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(GpuOverlap, OneStepAfterAnotherIsAFactorOfOne) {
    // Copy in, kernel, copy out, each 100 ns, on one stream.
    const gpu_overlap o = analyse_overlap(one_call(copy("HtoD", "pinned", 1, 7, 100, 200) + kernel(2, 7, 200, 300) +
                                                   copy("DtoH", "pinned", 3, 7, 300, 400)));
    EXPECT_EQ(o.span, 300u);
    EXPECT_EQ(o.copy_in, 100u);
    EXPECT_EQ(o.kernels, 100u);
    EXPECT_EQ(o.copy_out, 100u);
    EXPECT_EQ(o.idle, 0u);
    EXPECT_DOUBLE_EQ(o.factor(), 1.0);
    EXPECT_EQ(o.bytes_in, 1000u);
    EXPECT_EQ(o.bytes_out, 1000u);
    EXPECT_EQ(o.streams, 1);
    const auto seen = what_serialised(o);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_TRUE(mentions(seen, "every copy and kernel ran on one stream"));
}

TEST(GpuOverlap, TwoChunksOnTwoStreamsOverlap) {
    // Chunk 0 on stream 7, chunk 1 on stream 8, a step behind: its copy in
    // runs during chunk 0's kernel, its kernel during chunk 0's copy out.
    const gpu_overlap o = analyse_overlap(
        one_call(copy("HtoD", "pinned", 1, 7, 100, 200) + kernel(2, 7, 200, 300) + copy("DtoH", "pinned", 3, 7, 300, 400) +
                 copy("HtoD", "pinned", 4, 8, 200, 300) + kernel(5, 8, 300, 400) + copy("DtoH", "pinned", 6, 8, 400, 500)));
    EXPECT_EQ(o.span, 400u);
    EXPECT_EQ(o.copy_in + o.kernels + o.copy_out, 600u);
    EXPECT_DOUBLE_EQ(o.factor(), 1.5);
    EXPECT_EQ(o.streams, 2);
    EXPECT_TRUE(what_serialised(o).empty());
}

TEST(GpuOverlap, KernelsRunningAtOnceCountOnceInTheirLane) {
    // Two kernels side by side are not two kernels' worth of serial time:
    // otherwise a pipeline could look overlapped without a single copy hidden.
    const gpu_overlap o = analyse_overlap(one_call(kernel(1, 7, 100, 300) + kernel(2, 8, 100, 300)));
    EXPECT_EQ(o.kernels, 200u);
    EXPECT_DOUBLE_EQ(o.factor(), 1.0);
}

TEST(GpuOverlap, PageableCopiesAreNamed) {
    const gpu_overlap o = analyse_overlap(one_call(copy("HtoD", "pageable", 1, 7, 100, 200) + kernel(2, 8, 200, 300) +
                                                   copy("DtoH", "pinned", 3, 9, 300, 400)));
    EXPECT_EQ(o.pageable_copies, 1);
    const auto seen = what_serialised(o);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_TRUE(mentions(seen, "1 of the 2 copies in and out had pageable memory"));
}

TEST(GpuOverlap, AWaitWhileQueueingIsNamedButTheFinalWaitIsNot) {
    // Chunk 0 queued, then a wait, then chunk 1; after the last chunk the
    // code waits once (allowed) and the harness waits for the device.
    // cuStreamSynchronize inside cudaStreamSynchronize is the runtime's own
    // call, not a second wait.
    const gpu_overlap o = analyse_overlap(one_call(
        copy("HtoD", "pinned", 1, 7, 100, 200) + kernel(2, 7, 200, 300) + copy("DtoH", "pinned", 3, 7, 300, 400) +
        api("cudaStreamSynchronize_v3020", 10, 98, 401) + api("cuStreamSynchronize", 11, 99, 400) +
        copy("HtoD", "pinned", 4, 8, 500, 600) + kernel(5, 8, 600, 700) + copy("DtoH", "pinned", 6, 8, 700, 800) +
        api("cudaStreamSynchronize_v3020", 12, 800, 801) + api("cudaDeviceSynchronize_v3020", 13, 802, 803)));
    ASSERT_EQ(o.waits_while_queueing.size(), 1u);
    EXPECT_EQ(o.waits_while_queueing.at("cudaStreamSynchronize"), 1);
    EXPECT_EQ(o.idle, 100u);  // 400 to 500: nothing queued
    const auto seen = what_serialised(o);
    EXPECT_TRUE(mentions(seen, "the code called cudaStreamSynchronize (1x)"));
    EXPECT_TRUE(mentions(seen, "for 0.00 ms of the 0.00 ms the GPU ran nothing at all"));
}

TEST(GpuOverlap, MemsetsAndCopiesWithinTheGpuCountInTheSpanOnly) {
    const std::string memset = api("cudaMemsetAsync_v3020", 9, 40, 41) + R"({"memset":"device","bytes":64,)" +
                               work_fields(9, 7, 50, 100);
    const gpu_overlap o = analyse_overlap(one_call(memset + kernel(1, 8, 100, 200)));
    EXPECT_EQ(o.span, 150u);
    EXPECT_EQ(o.kernels, 100u);
    EXPECT_EQ(o.streams, 1);  // the memset's stream carries no lane's work
    EXPECT_EQ(lane_of(gpu_activity{}), gpu_lane::kernel);
}

TEST(GpuOverlapCapturedOnH200, TheSolutionsPipelineOverlapsInEveryCall) {
    // lesson05's solution, 2^26 elements, 4 streams, 16 chunks: grader run
    // lesson05 --solution on an H200 (3 copy engines).
    std::string why;
    const auto record =
        read_gpu_record(std::string(COURSE_TEST_FIXTURES) + "/gpu_record/pipeline_solution_h200.gpu_record", why);
    ASSERT_TRUE(record) << why;
    ASSERT_EQ(record->repetitions.size(), 10u);
    for (const auto& call : record->repetitions) {
        SCOPED_TRACE("call " + std::to_string(call.index + 1));
        const gpu_overlap o = analyse_overlap(call);
        EXPECT_EQ(o.bytes_in, std::uint64_t{1} << 28);
        EXPECT_EQ(o.bytes_out, std::uint64_t{1} << 28);
        EXPECT_EQ(o.copies_in, 16);
        EXPECT_EQ(o.kernel_count, 16);
        EXPECT_EQ(o.streams, 4);
        EXPECT_EQ(o.pageable_copies, 0);
        // Its cudaMalloc calls come before the first copy and its frees
        // after the last wait: nothing waits while chunks are queued.
        EXPECT_TRUE(o.waits_while_queueing.empty());
        EXPECT_GT(o.factor(), 2.0);
        EXPECT_TRUE(what_serialised(o).empty());
    }
}

namespace {

// Two known-wrong pipelines, recorded the same way (grader/mutants/05_streams).
gpu_overlap median_of(const std::string& fixture) {
    std::string why;
    const auto record = read_gpu_record(std::string(COURSE_TEST_FIXTURES) + "/gpu_record/" + fixture, why);
    EXPECT_TRUE(record) << why;
    if (!record) return {};
    std::vector<gpu_overlap> calls;
    for (const auto& call : record->repetitions) calls.push_back(analyse_overlap(call));
    std::sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.span < b.span; });
    return calls[calls.size() / 2];
}

}  // namespace

TEST(GpuOverlapCapturedOnH200, AWaitAfterEveryChunkIsNamed) {
    // sync_every_chunk: cudaStreamSynchronize after each chunk's copy out.
    // The sixteenth comes after the last chunk was queued, as a final wait.
    const gpu_overlap o = median_of("pipeline_sync_every_chunk_h200.gpu_record");
    EXPECT_LT(o.factor(), 1.05);
    EXPECT_EQ(o.streams, 4);
    ASSERT_EQ(o.waits_while_queueing.size(), 1u);
    EXPECT_EQ(o.waits_while_queueing.at("cudaStreamSynchronize"), 15);
    const auto seen = what_serialised(o);
    ASSERT_EQ(seen.size(), 1u) << seen.front();
    EXPECT_TRUE(mentions(seen, "the code called cudaStreamSynchronize (15x)"));
}

TEST(GpuOverlapCapturedOnH200, PageableStagingIsNamed) {
    // pageable_staging: every copy from or into a std::vector.
    const gpu_overlap o = median_of("pipeline_pageable_staging_h200.gpu_record");
    EXPECT_LT(o.factor(), 1.05);
    EXPECT_EQ(o.pageable_copies, 32);
    EXPECT_TRUE(o.waits_while_queueing.empty());
    const auto seen = what_serialised(o);
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(mentions(seen, "32 of the 32 copies in and out had pageable memory"));
}
