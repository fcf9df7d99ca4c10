#include <gtest/gtest.h>

#include "course/benchmark.hpp"
#include "course/timing.hpp"

TEST(Statistics, OddAndEvenCounts) {
    const auto odd = course::summarize({5, 1, 3});
    EXPECT_EQ(odd.n, 3u);
    EXPECT_DOUBLE_EQ(odd.min, 1);
    EXPECT_DOUBLE_EQ(odd.max, 5);
    EXPECT_DOUBLE_EQ(odd.median, 3);
    EXPECT_DOUBLE_EQ(odd.mean, 3);
    EXPECT_DOUBLE_EQ(odd.stddev, 2);  // sample standard deviation
    const auto even = course::summarize({4, 1, 3, 2});
    EXPECT_DOUBLE_EQ(even.median, 2.5);
}

TEST(Statistics, EmptyAndSingle) {
    EXPECT_EQ(course::summarize({}).n, 0u);
    const auto one = course::summarize({7});
    EXPECT_DOUBLE_EQ(one.median, 7);
    EXPECT_DOUBLE_EQ(one.stddev, 0);
}

TEST(BenchmarkResult, ThroughputFromMedianGpuTime) {
    course::benchmark_result r;
    r.gpu_us.median = 1000;  // 1 ms
    r.bytes = 4e9;
    r.flops = 2e9;
    EXPECT_DOUBLE_EQ(r.gigabytes_per_second(), 4000);
    EXPECT_DOUBLE_EQ(r.gigaflops(), 2000);
}

TEST(BenchmarkResult, PrintsLikeCupyxProfiler) {
    course::benchmark_result r;
    r.name = "vecadd";
    r.cpu_us = course::summarize({6, 6.2, 5.8});
    r.gpu_us = course::summarize({760, 764, 770});
    r.bytes = 3.0 * 4 * (1 << 28);
    const std::string text = r.to_string(4250, 4800);
    EXPECT_NE(text.find("vecadd :  CPU  :"), std::string::npos) << text;
    EXPECT_NE(text.find("GPU-0:"), std::string::npos) << text;
    EXPECT_NE(text.find("(min:"), std::string::npos) << text;
    EXPECT_NE(text.find("TB/s = "), std::string::npos) << text;
    EXPECT_NE(text.find("% of measured copy"), std::string::npos) << text;
    EXPECT_NE(text.find("% of peak"), std::string::npos) << text;
}
