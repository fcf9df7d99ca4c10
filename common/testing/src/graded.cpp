#include "course/testing/graded.hpp"

#include <cuda_runtime_api.h>

#include <random>
#include <stdexcept>
#include <string>

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

const graded_test_info* current_graded() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    return info ? find_graded(std::string(info->test_suite_name()) + "." + info->name()) : nullptr;
}

void require_across_streams(const char* check) {
    const graded_test_info* graded = current_graded();
    if (!graded || graded->across_streams) return;
    throw std::logic_error(graded->id() + " uses " + check +
                           ", which checks the order of work on different streams, but is not declared with "
                           "GRADED_STREAM_TEST: the grader may run it with one hardware queue, where the check "
                           "cannot fail (graded.hpp)");
}

namespace {

// A correctness test's judge works while the student's program runs the same
// test; one that measures anything (a speed test, a test that needs the GPU
// alone) starts only after it (evidence.hpp).
claim_wait when_to_wait(const graded_test_info* graded) {
    const bool measures = !graded || graded->alone || graded->kind == test_kind::performance;
    return measures ? claim_wait::at_once : claim_wait::at_first_result;
}

// The grader's words on a timed test (evidence.hpp): in the student's
// program, whether the speed tests go on; in the judge, that the GPU is its
// alone for a speed test it times (a word that never comes, from a grader
// gone, leaves the test untimed).
constexpr const char* speed_tests_stopped = "not timed: a correctness test failed, so the speed tests are not graded";
constexpr const char* no_judge_alone = "not timed: the grader never gave the judge the GPU to itself";

// Both fixtures' wait for those words, once the test is the judge's to judge.
bool timed_test_may_go(const graded_test_info* graded, std::string& why_not) {
    if (graded && graded->alone && !wait_for_gpu_alone()) why_not = speed_tests_stopped;
    else if (graded && graded->timed_by_judge && !wait_for_judge_alone()) why_not = no_judge_alone;
    return why_not.empty();
}
}  // namespace

void gpu_test::SetUp() {
    const graded_test_info* graded = current_graded();
    if (!judge_this_test(when_to_wait(graded))) GTEST_SKIP() << nothing_to_judge;
    if (!has_device()) GTEST_SKIP() << "no CUDA device: " << device_status().reason;
    if (std::string why_not; !timed_test_may_go(graded, why_not)) GTEST_SKIP() << why_not;
    cudaGetLastError();
}

// The course has no host test that needs the GPU alone; the grader's own
// tests fake a timed test as one (no GPU there), and it waits as a GPU test would.
void host_test::SetUp() {
    const graded_test_info* graded = current_graded();
    if (!judge_this_test(when_to_wait(graded))) GTEST_SKIP() << nothing_to_judge;
    if (std::string why_not; !timed_test_may_go(graded, why_not)) GTEST_SKIP() << why_not;
}

}  // namespace course::testing
