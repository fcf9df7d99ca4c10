// `grader run --timings`: the table of where a run's seconds went.
#include <gtest/gtest.h>

#include <thread>

#include "system/step_timings.hpp"

namespace {

using grader::step_timings;

TEST(StepTimings, ListsStepsInTheOrderTheyStartedWithTheirLengths) {
    step_timings timings;
    const auto origin = step_timings::clock::now();
    using std::chrono::milliseconds;
    // Added out of order, as the judge's thread and the student's reader would.
    timings.add("judge: A.Test", origin + milliseconds(300), origin + milliseconds(900));
    timings.add("build (cmake --build)", origin, origin + milliseconds(250));
    timings.add("student: A.Test", origin + milliseconds(260), origin + milliseconds(700));
    const auto spans = timings.spans();
    ASSERT_EQ(spans.size(), 3u);
    EXPECT_EQ(spans[0].step, "build (cmake --build)");
    EXPECT_EQ(spans[1].step, "student: A.Test");
    EXPECT_EQ(spans[2].step, "judge: A.Test");
    EXPECT_NEAR(spans[2].seconds, 0.6, 1e-6);
    EXPECT_NEAR(spans[2].start_s - spans[0].start_s, 0.3, 1e-6);

    const std::string table = timings.format();
    EXPECT_NE(table.find("build (cmake --build)"), std::string::npos) << table;
    EXPECT_NE(table.find("0.600"), std::string::npos) << table;         // the judge's 600 ms
    EXPECT_NE(table.find("0.440 s in all for \"student: ...\""), std::string::npos) << table;
}

TEST(StepTimings, ABatchsTableCountsFromTheBatchsStart) {
    const auto batch_start = step_timings::clock::now() - std::chrono::seconds(10);
    step_timings timings(batch_start, "the batch's start");
    const auto now = step_timings::clock::now();
    timings.add("student: A.Test", now, now + std::chrono::milliseconds(500));
    const auto spans = timings.spans();
    ASSERT_EQ(spans.size(), 1u);
    EXPECT_NEAR(spans[0].start_s, 10.0, 0.5);
    EXPECT_NE(timings.format().find("s from the batch's start to the report"), std::string::npos) << timings.format();
}

TEST(StepTimings, AMeasureAddsItsStepWhenItEnds) {
    step_timings timings;
    {
        const step_timings::measure step(&timings, "listing the graded tests");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const step_timings::measure nothing(nullptr, "not timed");  // no table: nothing happens
    const auto spans = timings.spans();
    ASSERT_EQ(spans.size(), 1u);
    EXPECT_EQ(spans[0].step, "listing the graded tests");
    EXPECT_GE(spans[0].seconds, 0.02);
}

TEST(StepTimings, EmptyGapsBetweenTestsAreLeftOut) {
    step_timings timings;
    const auto t = step_timings::clock::now();
    timings.add("student: between tests", t, t);
    timings.add("student: A.Test", t, t + std::chrono::milliseconds(5));
    const std::string table = timings.format();
    EXPECT_EQ(table.find("between tests"), std::string::npos) << table;
    EXPECT_NE(table.find("student: A.Test"), std::string::npos) << table;
}

}  // namespace
