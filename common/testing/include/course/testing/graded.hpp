#pragma once
// Graded tests are GoogleTest tests that also carry their points and a title
// for the report. The points live here, next to the code, and nowhere else:
//
//   GRADED_TEST(VecAdd, PartialLastBlock, 2, "129 elements, 128 threads per block") {
//       ...
//   }
//
// GRADED_TEST        needs a GPU; skipped (with the reason) on machines without one.
// GRADED_HOST_TEST   runs anywhere (compiling with NVRTC, say). Its suite gets
//                    the suffix "Host", which is how CTest labels it `host`.
// GRADED_PERF_TEST   performance points: judged against this GPU's own
//                    measured limits, and only graded once every correctness
//                    test passes. The judge times it, replaying what the
//                    student's calls launched: the judge's test, not the
//                    student's program's, has the GPU to itself.
// GRADED_PERF_TEST_SYSTEM  a performance test of what surrounds the kernels
//                    (a cache, an allocator, streams overlapping work): a
//                    failure is not explained by a profile of the kernels
//                    (profile_evidence.hpp), which a GRADED_PERF_TEST's is.
//                    Its time is taken in the student's program, which has
//                    the GPU to itself meanwhile.
// GRADED_TEST_ALONE  a correctness test that times GPU work: like every
//                    performance test, the grader runs it with the GPU to
//                    itself (the judge, grader/TRUST.md, waits meanwhile).
// GRADED_STREAM_TEST a correctness test of how work on different streams is
//                    ordered (a stream held while work is queued elsewhere,
//                    an event between two streams, copies overlapping
//                    kernels). The GPU shows that only where each stream has
//                    a hardware queue of its own: with one queue
//                    (CUDA_DEVICE_MAX_CONNECTIONS=1) the driver runs all work
//                    in the order it was issued, and a call that ignored its
//                    stream would look right. The grader starts a process
//                    with one queue only where it runs none of these tests
//                    and no timed one (grader/src/run/test_processes.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace course::testing {

enum class test_kind { correctness, performance };

struct graded_test_info {
    std::string suite;
    std::string name;
    int points;
    std::string title;
    test_kind kind;
    bool needs_gpu;
    bool alone = false;     // needs the GPU to itself: it measures time
    bool kernel_speed = false;  // it measures the student's kernels' speed: a profile explains a failure
    // The judge takes its time (replaying the student's calls), so the judge's
    // test, not the student's program's, is the one that needs the GPU alone.
    bool timed_by_judge = false;
    // It checks how work on different streams is ordered (GRADED_STREAM_TEST).
    bool across_streams = false;
    // The judge times it, but where it cannot replay a call the figure is the
    // record the student's program took (lesson05's pipeline): that program
    // has the GPU alone as well, until the judge's verdict is in.
    bool record_alone = false;
    std::string id() const { return suite + "." + name; }
};

// Every graded test registers itself before main() runs.
bool register_graded(graded_test_info info);
const std::vector<graded_test_info>& graded_tests();
const graded_test_info* find_graded(const std::string& id);
// The graded test running now; null outside one.
const graded_test_info* current_graded();
// For a check of stream order (a held stream): throws, naming `check`, where
// the graded test running it is not a GRADED_STREAM_TEST, which the grader
// might run with one hardware queue, where the check cannot fail.
void require_across_streams(const char* check);

// The run-wide seed (--seed=N, or COURSE_SEED, or drawn at start and printed).
std::uint64_t run_seed();
void set_run_seed(std::uint64_t seed);
// This test's own seed: the run seed mixed with the test's name, so that
// running one test alone draws the same numbers as the full run.
std::uint64_t seed();

// Fixtures: a GPU test skips, with cudaGetDeviceCount's reason, where there is
// no GPU, and starts with no CUDA error left over from an earlier test.
// In the judge (evidence.hpp) both first wait for the grader's word on the
// test, and skip it when there is no claimed pass to judge.
class gpu_test : public ::testing::Test {
protected:
    void SetUp() override;
};
class host_test : public ::testing::Test {
protected:
    void SetUp() override;
};

}  // namespace course::testing

#define COURSE_GRADED_TEST_R_(suite, name, points, title, kind, gpu, alone, kernel_speed, timed_by_judge,   \
                              across_streams, record_alone, fixture)                                       \
    static const bool course_graded_##suite##_##name##_ = ::course::testing::register_graded(              \
        {#suite, #name, points, title, ::course::testing::test_kind::kind, gpu, alone, kernel_speed,         \
         timed_by_judge, across_streams, record_alone});                                                     \
    GTEST_TEST_(suite, name, fixture, ::testing::internal::GetTypeId<fixture>())
#define COURSE_GRADED_TEST_S_(suite, name, points, title, kind, gpu, alone, kernel_speed, timed_by_judge,   \
                              across_streams, fixture)                                                     \
    COURSE_GRADED_TEST_R_(suite, name, points, title, kind, gpu, alone, kernel_speed, timed_by_judge,       \
                          across_streams, false, fixture)
#define COURSE_GRADED_TEST_J_(suite, name, points, title, kind, gpu, alone, kernel_speed, timed_by_judge, fixture) \
    COURSE_GRADED_TEST_S_(suite, name, points, title, kind, gpu, alone, kernel_speed, timed_by_judge, false, fixture)
#define COURSE_GRADED_TEST_P_(suite, name, points, title, kind, gpu, alone, kernel_speed, fixture) \
    COURSE_GRADED_TEST_J_(suite, name, points, title, kind, gpu, alone, kernel_speed, false, fixture)
#define COURSE_GRADED_TEST_(suite, name, points, title, kind, gpu, alone, fixture) \
    COURSE_GRADED_TEST_P_(suite, name, points, title, kind, gpu, alone, false, fixture)

#define GRADED_TEST(suite, name, points, title) \
    COURSE_GRADED_TEST_(suite, name, points, title, correctness, true, false, ::course::testing::gpu_test)
#define GRADED_TEST_ALONE(suite, name, points, title) \
    COURSE_GRADED_TEST_(suite, name, points, title, correctness, true, true, ::course::testing::gpu_test)
#define GRADED_STREAM_TEST(suite, name, points, title)                                                   \
    COURSE_GRADED_TEST_S_(suite, name, points, title, correctness, true, false, false, false, true, \
                          ::course::testing::gpu_test)
#define GRADED_PERF_TEST(suite, name, points, title) \
    COURSE_GRADED_TEST_J_(suite, name, points, title, performance, true, true, true, true, ::course::testing::gpu_test)
// Timed by the judge's replay on streams of its own, or from the record
// where a call cannot be replayed (timed_calls.hpp's time_pipeline): the
// student's program and then the judge each have the GPU alone.
#define GRADED_PERF_TEST_STREAMS(suite, name, points, title)                                                 \
    COURSE_GRADED_TEST_R_(suite, name, points, title, performance, true, true, false, true, false, true, \
                          ::course::testing::gpu_test)
#define GRADED_PERF_TEST_SYSTEM(suite, name, points, title) \
    COURSE_GRADED_TEST_P_(suite, name, points, title, performance, true, true, false, ::course::testing::gpu_test)
#define GRADED_HOST_TEST(suite, name, points, title)                                 \
    COURSE_GRADED_TEST_(suite##Host, name, points, title, correctness, false, false, \
                        ::course::testing::host_test)
