// The speed tests' array sizes under the grader: both processes of a graded
// run (the student's program and the judge) read the budget the grader
// measured, so they pick the same size even on a GPU too small for the cap.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "course/testing/performance.hpp"

namespace {

// Sets the grader's budget variable for one test and removes it after.
class budget_variable {
public:
    explicit budget_variable(const std::string& value) {
        setenv(course::testing::gpu_memory_budget_variable, value.c_str(), 1);
    }
    ~budget_variable() { unsetenv(course::testing::gpu_memory_budget_variable); }
};

}  // namespace

TEST(MemoryBudget, SizesFollowTheGradersFigureOnASmallGpu) {
    const budget_variable four_gib(std::to_string(std::size_t{4} << 30));
    EXPECT_EQ(course::testing::gpu_memory_budget(), std::size_t{4} << 30);
    // A quarter of 4 GiB over three float arrays: below vecadd's cap of 2^27.
    EXPECT_EQ(course::testing::elements_that_fit(std::size_t{1} << 27, 3, sizeof(float)),
              (std::size_t{4} << 30) / 4 / 3 / sizeof(float));
}

TEST(MemoryBudget, TheCapHoldsOnALargeGpu) {
    const budget_variable plenty(std::to_string(std::size_t{140} << 30));
    EXPECT_EQ(course::testing::elements_that_fit(std::size_t{1} << 27, 3, sizeof(float)), std::size_t{1} << 27);
}
