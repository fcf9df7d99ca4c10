// `grader bench`'s parts that need no GPU: benchmark names, sizes, the
// selection --sizes/--block-sizes make, which program times what (in the
// instructor's edition and in the student edition, which has no solution),
// and the reading of Google Benchmark's JSON output (a file recorded on an
// H200, grader/tests/fixtures/).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "cli/bench_results.hpp"

namespace grader {
namespace {

nlohmann::json read_fixture(const std::string& name) {
    std::ifstream in(std::string(GRADER_FIXTURES) + "/" + name);
    EXPECT_TRUE(in) << "missing fixture " << name;
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

TEST(BenchNames, FamilyAndNamedParameters) {
    const auto b = parse_benchmark_name("BM_vecadd/n:1048576/threads:256/manual_time");
    EXPECT_EQ(b.family, "vecadd");
    ASSERT_EQ(b.params.size(), 2u);
    EXPECT_EQ(b.params.at("n"), 1048576);
    EXPECT_EQ(b.params.at("threads"), 256);
}

TEST(BenchNames, CapturedVariantsBelongToTheFamily) {
    const auto b = parse_benchmark_name("BM_matmul/cublas_tf32/n:4096/manual_time");
    EXPECT_EQ(b.family, "matmul/cublas_tf32");
    EXPECT_EQ(b.params.at("n"), 4096);
}

TEST(BenchNames, RunOptionsAreDroppedAndUnnamedArgumentsNumbered) {
    const auto b = parse_benchmark_name("BM_copy/4096/repeats:3/min_time:0.100/real_time");
    EXPECT_EQ(b.family, "copy");
    ASSERT_EQ(b.params.size(), 1u);
    EXPECT_EQ(b.params.at("arg0"), 4096);
}

TEST(BenchNames, SizeAndBlockSizeFromTheUsualParameters) {
    EXPECT_EQ(size_of(parse_benchmark_name("BM_a/n:100")), 100);
    EXPECT_EQ(size_of(parse_benchmark_name("BM_a/bytes:4096")), 4096);
    EXPECT_EQ(size_of(parse_benchmark_name("BM_doublify/rows:8192/cols:4096/bx:32/by:8")), 8192.0 * 4096);
    EXPECT_EQ(block_size_of(parse_benchmark_name("BM_doublify/rows:8192/cols:4096/bx:32/by:8")), 256);
    EXPECT_EQ(block_size_of(parse_benchmark_name("BM_vecadd/n:1/threads:64")), 64);
    EXPECT_FALSE(size_of(parse_benchmark_name("BM_serial/manual_time")).has_value());
}

// A lesson as the manifest describes it: the variants given, each with a
// benchmark program unless `with_bench` says otherwise.
lesson_info lesson_with(const std::vector<std::string>& variants, bool with_bench = true) {
    lesson_info lesson;
    lesson.id = "lesson07";
    lesson.baselines = {"BM_matmul/cublas", "BM_matmul/going_further"};
    for (const auto& name : variants) {
        variant_info v;
        if (with_bench) {
            v.bench_target = "lesson07_" + name + "_bench";
            v.bench = "build/bin/lesson07_" + name + "_bench";
        }
        lesson.variants.emplace(name, v);
    }
    return lesson;
}

TEST(BenchPrograms, TheInstructorsBaselinesRunInTheSolutionsProgram) {
    const lesson_info lesson = lesson_with({"exercise", "solution"});
    EXPECT_EQ(bench_program_for(lesson, "exercise", false).variant, "exercise");
    EXPECT_EQ(bench_program_for(lesson, "solution", false).variant, "solution");
    EXPECT_EQ(bench_program_for(lesson, "baseline", false).variant, "solution");
}

TEST(BenchPrograms, TheStudentEditionsBaselinesRunInTheExercisesProgram) {
    const lesson_info lesson = lesson_with({"exercise"});
    for (const char* impl : {"exercise", "baseline"}) {
        const bench_program chosen = bench_program_for(lesson, impl, true);
        EXPECT_EQ(chosen.variant, "exercise") << impl;
        EXPECT_EQ(chosen.refusal, "") << impl;
    }
}

TEST(BenchPrograms, TheStudentEditionSaysInOneLineThatTheSolutionIsTheInstructors) {
    const bench_program chosen = bench_program_for(lesson_with({"exercise"}), "solution", true);
    EXPECT_EQ(chosen.variant, "");
    EXPECT_NE(chosen.refusal.find("student edition has no reference solution"), std::string::npos) << chosen.refusal;
    EXPECT_NE(chosen.refusal.find("grader bench lesson07 --impl exercise,baseline"), std::string::npos)
        << chosen.refusal;
    EXPECT_EQ(chosen.refusal.find('\n'), std::string::npos) << chosen.refusal;
}

TEST(BenchPrograms, ABuildWithoutBenchmarkProgramsSaysHowToGetThem) {
    const lesson_info lesson = lesson_with({"exercise", "solution"}, false);
    for (const char* impl : {"exercise", "solution", "baseline"}) {
        const bench_program chosen = bench_program_for(lesson, impl, false);
        EXPECT_EQ(chosen.variant, "") << impl;
        EXPECT_NE(chosen.refusal.find("-DCOURSE_BUILD_BENCHMARKS=OFF"), std::string::npos) << chosen.refusal;
    }
    // An instructor's build whose solution has no program (a solution-less
    // checkout is the student edition's case): the baselines are not lost.
    lesson_info partial = lesson_with({"exercise"});
    partial.variants.emplace("solution", variant_info{});
    EXPECT_EQ(bench_program_for(partial, "baseline", false).variant, "exercise");
}

TEST(BenchPrograms, WithheldRowsAreNamedByPrefix) {
    lesson_info lesson = lesson_with({"exercise"});
    lesson.withheld = {"BM_matmul/going_further"};
    EXPECT_TRUE(is_withheld("BM_matmul/going_further/n:4096/manual_time", lesson));
    EXPECT_FALSE(is_withheld("BM_matmul/cublas/n:4096/manual_time", lesson));
    EXPECT_FALSE(is_withheld("BM_matmul/going_further_x/n:4096", lesson));
}

TEST(BenchSizes, AcceptsTheWaysPeopleWriteSizes) {
    EXPECT_EQ(parse_size("100000"), 100000);
    EXPECT_EQ(parse_size("1e8"), 1e8);
    EXPECT_EQ(parse_size("2^28"), 268435456);
    EXPECT_EQ(parse_size("64Ki"), 65536);
    EXPECT_EQ(parse_size("1Mi"), 1048576);
    EXPECT_EQ(parse_size("10M"), 1e7);
    EXPECT_THROW(parse_size("lots"), std::invalid_argument);
    try {
        parse_size("big");
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("2^20"), std::string::npos) << "the error shows how to write one";
    }
}

TEST(BenchSelection, SizesAndBlockSizesNarrowTheSweep) {
    const std::vector<std::string> names = {
        "BM_vecadd/n:1048576/threads:64/manual_time", "BM_vecadd/n:1048576/threads:256/manual_time",
        "BM_vecadd/n:4194304/threads:256/manual_time", "BM_copy/n:1048576/manual_time", "BM_serial/manual_time"};
    EXPECT_EQ(select_benchmarks(names, {}, {}), names);
    EXPECT_EQ(select_benchmarks(names, {1048576}, {256}),
              (std::vector<std::string>{"BM_vecadd/n:1048576/threads:256/manual_time",
                                        "BM_copy/n:1048576/manual_time", "BM_serial/manual_time"}));
    EXPECT_TRUE(select_benchmarks(names, {42}, {7}) ==
                std::vector<std::string>{"BM_serial/manual_time"})
        << "a benchmark without a size has nothing to narrow";
}

TEST(BenchSelection, BaselinesAreNamePrefixes) {
    const std::vector<std::string> baselines = {"BM_copy", "BM_matmul/cublas"};
    EXPECT_TRUE(is_baseline("BM_copy/n:1024/manual_time", baselines));
    EXPECT_TRUE(is_baseline("BM_matmul/cublas/n:256/manual_time", baselines));
    EXPECT_FALSE(is_baseline("BM_matmul/cublas_tf32/n:256/manual_time", baselines));
    EXPECT_FALSE(is_baseline("BM_copy_kernel/n:1024", baselines));
}

TEST(BenchSelection, FilterMatchesExactlyTheChosenNames) {
    const std::regex filter(filter_for({"BM_a/n:1/manual_time", "BM_b(x)/n:2"}));
    EXPECT_TRUE(std::regex_search("BM_a/n:1/manual_time", filter));
    EXPECT_TRUE(std::regex_search("BM_b(x)/n:2", filter));
    EXPECT_FALSE(std::regex_search("BM_a/n:10/manual_time", filter));
    EXPECT_FALSE(std::regex_search("BM_aa/n:1/manual_time", filter));
}

// Google Benchmark's own JSON from lesson01's solution on an H200, 3 repetitions.
TEST(BenchResults, RepetitionsFoldIntoOneResultWithTheirSpread) {
    const auto run = parse_google_benchmark(read_fixture("gbench_lesson01.json"), "solution");
    ASSERT_FALSE(run.results.empty());
    EXPECT_EQ(run.context.value("device", ""), "NVIDIA H200") << "bench_main records the device";
    EXPECT_TRUE(run.context.contains("copy_bandwidth_gbps"));
    EXPECT_TRUE(run.context.contains("peak_bandwidth_gbps"));
    EXPECT_TRUE(run.context.contains("compute_capability"));
    for (const auto& r : run.results) {
        SCOPED_TRACE(r["name"].get<std::string>());
        EXPECT_EQ(r["impl"], "solution");
        EXPECT_EQ(r["repetitions"], 3);
        const auto& t = r["time_us"];
        EXPECT_LE(t["min"].get<double>(), t["median"].get<double>());
        EXPECT_LE(t["median"].get<double>(), t["max"].get<double>());
        EXPECT_GT(t["min"].get<double>(), 0.0);
        EXPECT_EQ(t["samples"].size(), 3u);
        EXPECT_TRUE(r.contains("size"));
        EXPECT_GT(r["counters"].value("GB/s", 0.0), 0.0);
        EXPECT_FALSE(r["counters"].contains("real_time")) << "only user counters are counters";
    }
}

TEST(BenchResults, ANotANumberCounterIsSkippedNotAFailure) {
    // What Google Benchmark wrote for a counter that was 0 in every
    // repetition: its coefficient of variation, 0 / 0, as a bare NaN.
    const std::string text = R"({"benchmarks": [
      {"name": "BM_nan/n:1/manual_time", "run_name": "BM_nan/n:1/manual_time", "run_type": "iteration",
       "real_time": 1000.0, "time_unit": "ns", "hints": 0, "GB/s": 5.0},
      {"name": "BM_nan/n:1/manual_time_cv", "run_name": "BM_nan/n:1/manual_time", "run_type": "aggregate",
       "real_time": 0.0, "time_unit": "ns", "hints": NaN, "GB/s": -inf}]})";
    EXPECT_FALSE(nlohmann::json::accept(text)) << "the file is not JSON as written";
    const auto run = parse_google_benchmark(read_google_benchmark_json(text), "baseline");
    ASSERT_EQ(run.results.size(), 1u);
    EXPECT_EQ(run.results[0]["name"], "BM_nan/n:1/manual_time");
    EXPECT_DOUBLE_EQ(run.results[0]["counters"]["GB/s"].get<double>(), 5.0);
}

TEST(BenchResults, ErrorsAreReportedOncePerBenchmark) {
    nlohmann::json output = {
        {"context", {{"device", "X"}}},
        {"benchmarks",
         {{{"name", "BM_a/n:1/manual_time"}, {"run_name", "BM_a/n:1/manual_time"}, {"run_type", "iteration"},
           {"error_occurred", true}, {"error_message", "not implemented yet: lesson01::vecadd"},
           {"real_time", 0.0}, {"time_unit", "ns"}},
          {{"name", "BM_a/n:1/manual_time"}, {"run_name", "BM_a/n:1/manual_time"}, {"run_type", "iteration"},
           {"error_occurred", true}, {"error_message", "not implemented yet: lesson01::vecadd"},
           {"real_time", 0.0}, {"time_unit", "ns"}},
          {{"name", "BM_b/n:1/manual_time"}, {"run_name", "BM_b/n:1/manual_time"}, {"run_type", "iteration"},
           {"real_time", 2000.0}, {"time_unit", "ns"}, {"GB/s", 10.0}},
          {{"name", "BM_b/n:1/manual_time_mean"}, {"run_name", "BM_b/n:1/manual_time"},
           {"run_type", "aggregate"}, {"real_time", 2000.0}, {"time_unit", "ns"}}}}};
    const auto run = parse_google_benchmark(output, "exercise");
    ASSERT_EQ(run.errors.size(), 1u);
    EXPECT_EQ(run.errors[0]["message"], "not implemented yet: lesson01::vecadd");
    ASSERT_EQ(run.results.size(), 1u) << "aggregates are recomputed, not copied";
    EXPECT_DOUBLE_EQ(run.results[0]["time_us"]["median"].get<double>(), 2.0) << "ns become us";
    EXPECT_DOUBLE_EQ(run.results[0]["counters"]["GB/s"].get<double>(), 10.0);
}

// A file `grader bench` wrote on an H200 has what an instructor needs to say
// what was measured where.
TEST(BenchFile, CarriesDeviceAndBuildMetadata) {
    for (const char* name : {"bench_lesson01.json", "bench_lesson05.json", "bench_lesson06_sweep.json", "bench_lesson07.json"}) {
        SCOPED_TRACE(name);
        const auto doc = read_fixture(name);
        EXPECT_EQ(doc["schema"], bench_schema);
        EXPECT_TRUE(doc["lesson"].contains("id"));
        const auto& c = doc["context"];
        for (const char* key : {"device", "compute_capability", "peak_bandwidth_gbps", "copy_bandwidth_gbps",
                                "l2_bytes", "toolkit", "git_commit", "date", "cuda_driver", "cuda_runtime"})
            EXPECT_TRUE(c.contains(key)) << key;
        EXPECT_FALSE(doc["results"].empty());
        for (const auto& r : doc["results"])
            for (const char* key : {"impl", "name", "family", "params", "time_us", "counters"})
                EXPECT_TRUE(r.contains(key)) << key;
    }
}

}  // namespace
}  // namespace grader
