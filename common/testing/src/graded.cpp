#include "course/testing/graded.hpp"

#include <cuda_runtime_api.h>

#include <random>

#include "course/device_info.hpp"
#include "course/random.hpp"
#include "course/testing/evidence.hpp"

namespace course::testing {

namespace {
std::vector<graded_test_info>& registry() {
    static std::vector<graded_test_info> tests;  // built during static initialisation
    return tests;
}
std::uint64_t& seed_storage() {
    static std::uint64_t seed = std::random_device{}() % 100000;
    return seed;
}
}  // namespace

bool register_graded(graded_test_info info) {
    registry().push_back(std::move(info));
    return true;
}

const std::vector<graded_test_info>& graded_tests() { return registry(); }

const graded_test_info* find_graded(const std::string& id) {
    for (const auto& t : registry())
        if (t.id() == id) return &t;
    return nullptr;
}

std::uint64_t run_seed() { return seed_storage(); }
void set_run_seed(std::uint64_t seed) { seed_storage() = seed; }

std::uint64_t seed() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    if (!info) return run_seed();
    const std::string id = std::string(info->test_suite_name()) + "." + info->name();
    return derive_seed(run_seed(), id.c_str());
}

void gpu_test::SetUp() {
    if (!judge_this_test()) GTEST_SKIP() << "nothing to judge: the test program did not claim a pass";
    if (!has_device()) GTEST_SKIP() << "no CUDA device: " << device_status().reason;
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
        const auto* graded = find_graded(std::string(info->test_suite_name()) + "." + info->name());
        if (graded && graded->alone) wait_for_gpu_alone();
    }
    cudaGetLastError();
}

void host_test::SetUp() {
    if (!judge_this_test()) GTEST_SKIP() << "nothing to judge: the test program did not claim a pass";
}

}  // namespace course::testing
