// `grader plot` draws each kind of plot from files `grader bench` wrote on an
// H200 (grader/tests/fixtures/), through matplotlib with no display.
#include <gtest/gtest.h>

#include <fstream>

#include "checkout/context.hpp"
#include "cli/commands.hpp"
#include "course/temp_dir.hpp"
#include "evidence/gpu_timeline.hpp"

namespace grader {
namespace {

// A PNG starts with these eight bytes; an empty or half-written file does not.
bool is_png(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    return in && std::string(magic, 8) == "\x89PNG\r\n\x1a\n";
}

struct plot_case {
    const char* fixture;
    const char* kind;
};

class PlotKinds : public ::testing::TestWithParam<plot_case> {};

TEST_P(PlotKinds, MakesANonEmptyPicture) {
    course::temp_dir out("grader-plot-test");
    plot_args args;
    args.input = std::string(GRADER_FIXTURES) + "/" + GetParam().fixture;
    args.output = out / "plot.png";
    args.kind = GetParam().kind;
    ASSERT_EQ(cmd_plot({GRADER_BUILD_DIR}, args), 0);
    ASSERT_TRUE(std::filesystem::exists(*args.output));
    EXPECT_TRUE(is_png(*args.output));
    EXPECT_GT(std::filesystem::file_size(*args.output), 20'000u) << "a slide-sized plot, not an empty canvas";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PlotKinds,
                         ::testing::Values(plot_case{"bench_lesson01.json", "time"},
                                           plot_case{"bench_lesson01.json", "bandwidth"},
                                           plot_case{"bench_lesson01.json", "speedup"},
                                           plot_case{"bench_lesson06_sweep.json", "time"},
                                           plot_case{"bench_lesson06_sweep.json", "bandwidth"},
                                           plot_case{"bench_lesson07.json", "gflops"},
                                           plot_case{"bench_lesson07.json", "speedup"},
                                           plot_case{"bench_lesson05.json", "timeline"},
                                           plot_case{"bench_lesson05.json", "auto"},
                                           plot_case{"bench_lesson01_vs_cpu.json", "crossover"},
                                           plot_case{"bench_lesson01_vs_cpu.json", "auto"},
                                           plot_case{"bench_lesson01_vs_cpu.json", "time"}),
                         [](const auto& info) {
                             // "bench_lesson01_vs_cpu.json", "crossover" -> lesson01_vs_cpu_crossover
                             const std::string fixture = info.param.fixture;
                             return fixture.substr(6, fixture.size() - 11) + "_" + info.param.kind;
                         });

TEST(Plot, DrawsTheTimelineOfARunFromTheGpusRecord) {
    // What `grader run lesson05 --timeline` draws: lesson05's solution,
    // recorded on an H200 (common/tests/fixtures/gpu_record).
    course::temp_dir evidence("grader-plot-test"), out("grader-plot-test");
    std::filesystem::copy_file(std::string(COURSE_FIXTURES) + "/gpu_record/pipeline_solution_h200.gpu_record",
                               evidence / "PipelinePerf.FourStreamsOverlap.evidence.gpu_record");
    std::vector<std::string> problems;
    const auto timelines = read_gpu_timelines(evidence.path(), problems);
    ASSERT_EQ(timelines.size(), 1u);
    std::ofstream(out / "timeline.json")
        << timeline_plot_document(timelines, "lesson05", "streams and events", "NVIDIA H200 (sm_90)").dump();
    plot_args args;
    args.input = out / "timeline.json";
    args.output = out / "timeline.png";
    args.kind = "timeline";
    ASSERT_EQ(cmd_plot({GRADER_BUILD_DIR}, args), 0);
    EXPECT_TRUE(is_png(*args.output));
    EXPECT_GT(std::filesystem::file_size(*args.output), 20'000u);
}

TEST(Plot, AMissingFileSaysWhereOneComesFrom) {
    plot_args args;
    args.input = "/no/such/bench.json";
    try {
        cmd_plot({GRADER_BUILD_DIR}, args);
        FAIL() << "expected an error";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("grader bench"), std::string::npos) << e.what();
    }
}

TEST(Plot, AKindTheFileCannotShowIsAUsageError) {
    course::temp_dir out("grader-plot-test");
    plot_args args;
    args.input = std::string(GRADER_FIXTURES) + "/bench_lesson01.json";
    args.output = out / "plot.png";
    args.kind = "timeline";  // only lesson05 records one
    EXPECT_EQ(cmd_plot({GRADER_BUILD_DIR}, args), usage_error);
    EXPECT_FALSE(std::filesystem::exists(*args.output));
}

}  // namespace
}  // namespace grader
