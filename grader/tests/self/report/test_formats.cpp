#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/formats.hpp"

namespace {
grader::lesson_report sample() {
    grader::lesson_report r;
    r.lesson_id = "lesson01";
    r.title = "vector addition";
    r.variant = "exercise";
    r.device = "NVIDIA H200 (sm_90)";
    r.seed = 1873;
    grader::graded_test pass{"VecAdd.SingleElement", "single element", 1};
    pass.status = grader::test_status::passed;
    grader::graded_test fail{"VecAdd.PartialLastBlock", "129 elements, 128 threads per block", 2};
    fail.status = grader::test_status::failed;
    fail.messages = {"element 128: expected 1.2431, got NaN (never written)\nthe last, partial block did not run"};
    grader::graded_test perf{"VecAdd.Bandwidth", "bandwidth >= 60% of this GPU's copy bandwidth", 2};
    perf.performance = true;
    perf.status = grader::test_status::not_run;
    perf.messages = {"needs correctness first"};
    r.tests = {pass, fail, perf};
    return r;
}
}  // namespace

TEST(Formats, ScoreAddsPassedPointsOnly) {
    const auto r = sample();
    EXPECT_EQ(r.score(), 1);
    EXPECT_EQ(r.max_score(), 5);
    EXPECT_TRUE(r.graded());
}

TEST(Formats, TextShowsMarksPointsAndTheLesson) {
    const std::string text = grader::format_text(sample(), {false, true});
    EXPECT_NE(text.find("lesson01 · vector addition · exercise · NVIDIA H200 (sm_90) · seed 1873"), std::string::npos) << text;
    EXPECT_NE(text.find("✓ single element"), std::string::npos) << text;
    EXPECT_NE(text.find("✗ 129 elements, 128 threads per block"), std::string::npos) << text;
    EXPECT_NE(text.find(" 0/2\n      element 128: expected 1.2431, got NaN"), std::string::npos) << text;
    EXPECT_NE(text.find("(needs correctness first)"), std::string::npos) << text;
    EXPECT_NE(text.find("score 1/5 · next: grader hint lesson01"), std::string::npos) << text;
    EXPECT_EQ(text.find("\x1b["), std::string::npos) << "no colour was asked for";
}

TEST(Formats, TextWithoutAGpuClaimsNothing) {
    auto r = sample();
    r.device.clear();
    r.no_gpu_reason = "cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable GPU is visible)";
    for (auto& t : r.tests) {
        t.status = grader::test_status::skipped;
        t.messages = {"no CUDA device"};
    }
    const std::string text = grader::format_text(r, {false, true});
    EXPECT_NE(text.find("3 GPU tests skipped; nothing was graded"), std::string::npos) << text;
    EXPECT_EQ(text.find("score"), std::string::npos) << text;
    EXPECT_EQ(text.find("✓"), std::string::npos) << text;
}

TEST(Formats, GradescopeHasTheFieldsItRequires) {
    const auto j = nlohmann::json::parse(grader::format_gradescope(sample()));
    EXPECT_EQ(j.at("score"), 1);
    EXPECT_EQ(j.at("max_score"), 5);
    ASSERT_EQ(j.at("tests").size(), 3u);
    for (const auto& t : j.at("tests")) {
        for (const char* field : {"name", "score", "max_score", "status", "output", "visibility"})
            EXPECT_TRUE(t.contains(field)) << field;
        EXPECT_TRUE(t.at("status") == "passed" || t.at("status") == "failed");
    }
    EXPECT_EQ(j.at("tests")[1].at("status"), "failed");
    EXPECT_EQ(j.at("tests")[1].at("max_score"), 2);
}

TEST(Formats, JsonCarriesEverything) {
    const auto j = nlohmann::json::parse(grader::format_json(sample()));
    EXPECT_EQ(j.at("lesson"), "lesson01");
    EXPECT_EQ(j.at("seed"), 1873);
    EXPECT_EQ(j.at("tests")[2].at("kind"), "performance");
    EXPECT_EQ(j.at("tests")[2].at("status"), "not_run");
}

TEST(Formats, JunitCountsAndEscapes) {
    auto r = sample();
    r.tests[1].messages = {"expected <1> & got \"2\""};
    const std::string xml = grader::format_junit(r);
    EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("expected &lt;1&gt; &amp; got &quot;2&quot;"), std::string::npos) << xml;
    EXPECT_EQ(xml.find("<1>"), std::string::npos);
}

TEST(Formats, ColourOnlyWhenAsked) {
    const std::string text = grader::format_text(sample(), {true, true});
    EXPECT_NE(text.find("\x1b[32m"), std::string::npos);
}

TEST(Formats, AProfileIsATableInTextAndFiguresInJson) {
    auto r = sample();
    grader::kernel_measure k;
    k.kernel = "lesson01::vecadd4_kernel";
    k.origin = "yours";
    k.time_ns = 364100;
    k.dram_pct = 90.8;
    k.load_sector_use_pct = 100;
    r.tests[0].kernels = {k};
    r.tests[0].profiled = true;
    r.tests[2].profiled = true;  // profiled, and no kernel ran
    const std::string text = grader::format_text(r, {false, true});
    EXPECT_NE(text.find("      kernel (Nsight Compute)"), std::string::npos) << text;
    EXPECT_NE(text.find("lesson01::vecadd4_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find("364.1 us   91%"), std::string::npos) << text;
    EXPECT_NE(text.find("(needs correctness first)\n      Nsight Compute saw no kernel run during this test"),
              std::string::npos)
        << text;
    const auto j = nlohmann::json::parse(grader::format_json(r));
    EXPECT_EQ(j["tests"][0]["kernels"][0]["kernel"], "lesson01::vecadd4_kernel");
    EXPECT_EQ(j["tests"][0]["kernels"][0]["dram_pct"], 90.8);
    EXPECT_TRUE(j["tests"][0]["kernels"][0]["sm_pct"].is_null()) << "not measured is null, not 0";
    EXPECT_TRUE(j["tests"][2]["kernels"].empty());
    EXPECT_FALSE(j["tests"][1].contains("kernels")) << "not profiled";
}

TEST(Formats, APassedSpeedTestShowsItsFigureEverywhere) {
    auto r = sample();
    r.tests[2].status = grader::test_status::passed;
    r.tests[2].messages.clear();
    r.tests[2].figure = "4353 GB/s, 103% of this GPU's copy bandwidth (4226 GB/s); 60% is needed";
    const std::string text = grader::format_text(r, {false, true});
    EXPECT_NE(text.find(" 2/2\n      4353 GB/s, 103% of this GPU's copy bandwidth"), std::string::npos) << text;
    const auto json = nlohmann::json::parse(grader::format_json(r));
    EXPECT_EQ(json.at("tests")[2].at("figure"), r.tests[2].figure);
    EXPECT_FALSE(json.at("tests")[0].contains("figure")) << "a test without a figure has none";
    const auto gradescope = nlohmann::json::parse(grader::format_gradescope(r));
    EXPECT_EQ(gradescope.at("tests")[2].at("output"), r.tests[2].figure);
}
