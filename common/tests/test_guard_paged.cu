// Guard-paged inputs (course/testing/guard_paged.hpp) on a real GPU: the
// array ends on the guard (or starts on it), starts 16-byte aligned, holds
// what is copied in, says where it lies in the input map, and a kernel that
// reads one element past its end (or before its start) stops with an illegal
// address. Those reads run in a child process (a death test, re-executed
// from the start), because the error ends the CUDA context for good.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "course/temp_dir.hpp"
#include "course/testing/guard_paged.hpp"

namespace {

bool have_gpu() {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

using course::testing::guard_side;

__global__ void read_one(const float* p, std::ptrdiff_t i, float* out) { *out = p[i]; }

// Reads element i (which may be negative) of a guard-paged array of n
// floats: exits 0 if the read worked, 3 if the GPU reported an illegal address.
[[noreturn]] void read_and_exit(std::size_t n, std::ptrdiff_t i, guard_side side = guard_side::after) {
    course::testing::guard_paged_array<float> array(n, side);
    float* out = nullptr;
    if (cudaMalloc(&out, sizeof(float)) != cudaSuccess) std::exit(1);
    read_one<<<1, 1>>>(array.data(), i, out);
    const cudaError_t status = cudaDeviceSynchronize();
    std::_Exit(status == cudaErrorIllegalAddress ? 3 : status == cudaSuccess ? 0 : 2);
}

}  // namespace

TEST(GuardPaged, EndsOnTheGuardAndStartsAligned) {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{1000}, std::size_t{1} << 20,
                          (std::size_t{1} << 21) + 1}) {
        const course::testing::guard_paged_array<float> array(n);
        const auto start = reinterpret_cast<std::uintptr_t>(array.data());
        const auto end = start + n * sizeof(float);
        EXPECT_EQ(start % 16, 0u) << n;
        EXPECT_LE(end, array.guard().begin) << n;
        EXPECT_EQ(array.guard().begin - end, (16 - n * sizeof(float) % 16) % 16) << n;  // slack only to 16 bytes
    }
    EXPECT_EQ(course::testing::guard_paged_array<float>(0).data(), nullptr);
}

TEST(GuardPaged, StartsOnTheGuardWhenItComesBefore) {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 21) + 1}) {
        const course::testing::guard_paged_array<float> array(n, guard_side::before);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(array.data()), array.guard().end) << n;
        EXPECT_LT(array.guard().begin, array.guard().end) << n;
    }
}

TEST(GuardPaged, ANamedInputSaysWhereItLiesWhenTheGraderAsks) {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    course::temp_dir dir("guard-map");
    const auto map = dir.path() / "inputs.jsonl";
    setenv(course::testing::input_map_variable, map.c_str(), 1);
    const course::testing::guard_paged_array<float> a(129, guard_side::after, "a");
    const course::testing::guard_paged_array<float> unnamed(5);
    unsetenv(course::testing::input_map_variable);
    const course::testing::guard_paged_array<float> after_the_grader_asked(5, guard_side::after, "late");
    std::ifstream in(map);
    std::string line, more;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_FALSE(std::getline(in, more)) << "only the named input, while the variable was set: " << more;
    EXPECT_NE(line.find(R"("name":"a")"), std::string::npos) << line;
    EXPECT_NE(line.find(R"("first":)" + std::to_string(reinterpret_cast<std::uintptr_t>(a.data()))),
              std::string::npos) << line;
    EXPECT_NE(line.find(R"("guard":[)" + std::to_string(a.guard().begin) + "," + std::to_string(a.guard().end)),
              std::string::npos) << line;
}

TEST(GuardPaged, HoldsWhatIsCopiedIn) {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    std::vector<float> values(12345);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
    const auto array = course::testing::guard_paged_array<float>::from_host(values);
    EXPECT_EQ(array.to_host(), values);
}

TEST(GuardPaged, TheSlackAfterAnOddSizeHoldsNaN) {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    const auto array = course::testing::guard_paged_array<float>::from_host({1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
    std::vector<unsigned char> slack(array.guard().begin - reinterpret_cast<std::uintptr_t>(array.data() + 5));
    ASSERT_EQ(slack.size(), 12u);
    ASSERT_EQ(cudaMemcpy(slack.data(), array.data() + 5, slack.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    for (unsigned char byte : slack) EXPECT_EQ(byte, 0xFF);
    EXPECT_EQ(array.to_host(), (std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f, 5.0f}));
}

TEST(GuardPagedDeathTest, AReadPastTheEndFaults) {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(read_and_exit(1024, 1023), testing::ExitedWithCode(0), "");  // the last element
    EXPECT_EXIT(read_and_exit(1024, 1024), testing::ExitedWithCode(3), "");  // one past it
    EXPECT_EXIT(read_and_exit(1024, 5000), testing::ExitedWithCode(3), "");  // well past it
}

TEST(GuardPagedDeathTest, AReadBeforeTheStartFaultsWhenTheGuardComesBefore) {
    if (!have_gpu()) GTEST_SKIP() << "no GPU";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(read_and_exit(1024, 0, guard_side::before), testing::ExitedWithCode(0), "");   // the first element
    EXPECT_EXIT(read_and_exit(1024, -1, guard_side::before), testing::ExitedWithCode(3), "");  // one before it
    EXPECT_EXIT(read_and_exit(1024, 1100, guard_side::before), testing::ExitedWithCode(0), "");  // mapped slack
}
