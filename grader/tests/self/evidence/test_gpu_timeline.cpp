// `grader run --timeline`: the records a run left in its evidence folder,
// read and drawn as text (evidence/gpu_timeline.hpp). The records here are
// written by hand in the recorder's format (course/testing/gpu_record.hpp).
#include <gtest/gtest.h>

#include <fstream>

#include "course/temp_dir.hpp"
#include "evidence/gpu_timeline.hpp"

namespace grader {
namespace {

std::string line(const std::string& json) { return json + "\n"; }

// Call `rep`, from t0: chunk 0 on stream 7 and chunk 1 on stream 8 a step
// behind, each step `step` ns long; the API calls precede their work.
std::string two_chunk_call(int rep, int t0, int step) {
    std::string text = line(R"({"mark":"begin","rep":)" + std::to_string(rep) + R"(,"t":)" + std::to_string(t0) + "}");
    int corr = rep * 100;
    const char* kinds[] = {"HtoD", "kernel", "DtoH"};
    for (int chunk = 0; chunk < 2; ++chunk)
        for (int k = 0; k < 3; ++k) {
            const int start = t0 + 10 + (chunk + k) * step, end = start + step;
            ++corr;
            text += line(R"({"api":"cudaMemcpyAsync_v3020","corr":)" + std::to_string(corr) + R"(,"start":)" +
                         std::to_string(t0 + 1) + R"(,"end":)" + std::to_string(t0 + 2) + "}");
            const std::string where = R"("corr":)" + std::to_string(corr) + R"(,"stream":)" + std::to_string(7 + chunk) +
                                      R"(,"context":1,"start":)" + std::to_string(start) + R"(,"end":)" +
                                      std::to_string(end) + "}";
            if (k == 1) text += line(R"({"kernel":"_Z6kepleri",)" + where);
            else
                text += line(std::string(R"({"copy":")") + kinds[k] + R"(","from":")" + (k == 0 ? "pinned" : "device") +
                             R"(","to":")" + (k == 0 ? "device" : "pinned") + R"(","bytes":4096,)" + where);
        }
    return text + line(R"({"mark":"end","rep":)" + std::to_string(rep) + R"(,"t":)" +
                       std::to_string(t0 + 10 + 5 * step) + "}");
}

std::string record(const std::vector<std::pair<int, int>>& calls) {
    std::string text = line(R"({"record":"course-gpu-record","version":1,"nonce":"n"})");
    int t0 = 1000;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        text += two_chunk_call(static_cast<int>(i), t0, calls[i].second);
        t0 += 100000;
    }
    return text + line(R"({"complete":true})");
}

void write(const std::filesystem::path& file, const std::string& text) { std::ofstream(file) << text; }

}  // namespace

TEST(GpuTimeline, DrawsTheMedianCallOfEachRecordedTest) {
    course::temp_dir evidence("grader-timeline-test");
    // Steps of 1000, 3000 and 2000 ns: the median call is the third.
    write(evidence / "PipelinePerf.FourStreamsOverlap.evidence.gpu_record",
          record({{0, 1000}, {1, 3000}, {2, 2000}}));
    write(evidence / "PipelinePerf.FourStreamsOverlap.evidence", "not a record");
    std::vector<std::string> problems;
    const auto timelines = read_gpu_timelines(evidence.path(), problems);
    EXPECT_TRUE(problems.empty());
    ASSERT_EQ(timelines.size(), 1u);
    EXPECT_EQ(timelines[0].test, "PipelinePerf.FourStreamsOverlap");
    EXPECT_EQ(timelines[0].call, 3);
    EXPECT_EQ(timelines[0].calls, 3);
    EXPECT_EQ(timelines[0].median.span(), 8000u);

    const std::string sketch = timeline_sketch(timelines[0], 8);
    // Four steps of 2000 ns, two columns each: stream 0 runs in, kernel, out
    // from the start; stream 1 the same a step later; the engines show both.
    EXPECT_NE(sketch.find("call 3 of 3 (the median): 0.01 ms on the GPU"), std::string::npos) << sketch;
    EXPECT_NE(sketch.find("stream 0   |>>##<<  |"), std::string::npos) << sketch;
    EXPECT_NE(sketch.find("stream 1   |  >>##<<|"), std::string::npos) << sketch;
    EXPECT_NE(sketch.find("copies in  |>>>>    |"), std::string::npos) << sketch;
    EXPECT_NE(sketch.find("kernels    |  ####  |"), std::string::npos) << sketch;
    EXPECT_NE(sketch.find("copies out |    <<<<|"), std::string::npos) << sketch;
    EXPECT_NE(sketch.find("overlap 1.50x"), std::string::npos) << sketch;
}

TEST(GpuTimeline, ADamagedRecordIsNamedAndTheOthersStillDrawn) {
    course::temp_dir evidence("grader-timeline-test");
    write(evidence / "A.Good.evidence.gpu_record", record({{0, 1000}}));
    write(evidence / "B.Damaged.evidence.gpu_record", "{\"record\":\"something else\"}\n");
    std::vector<std::string> problems;
    const auto timelines = read_gpu_timelines(evidence.path(), problems);
    ASSERT_EQ(timelines.size(), 1u);
    EXPECT_EQ(timelines[0].test, "A.Good");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("B.Damaged: its GPU record cannot be read"), std::string::npos) << problems[0];
}

TEST(GpuTimeline, ThePlotDocumentHoldsEveryStepOfTheCall) {
    course::temp_dir evidence("grader-timeline-test");
    write(evidence / "PipelinePerf.FourStreamsOverlap.evidence.gpu_record", record({{0, 1000}}));
    std::vector<std::string> problems;
    const auto doc = timeline_plot_document(read_gpu_timelines(evidence.path(), problems), "lesson05",
                                            "streams and events", "NVIDIA H200");
    const auto& run = doc["timelines"]["your code"]["runs"][0];
    EXPECT_EQ(run["streams"], 2);
    EXPECT_DOUBLE_EQ(run["overlap"].get<double>(), 1.5);
    ASSERT_EQ(run["entries"].size(), 6u);
    EXPECT_EQ(run["entries"][0]["kind"], "h2d");
    EXPECT_EQ(run["entries"][0]["stream"], 0);
    EXPECT_DOUBLE_EQ(run["entries"][0]["start_ms"].get<double>(), 0.0);
    EXPECT_EQ(doc["timelines"]["your code"]["bytes_each_way"], 8192);
}

}  // namespace grader
