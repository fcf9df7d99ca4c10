#pragma once
// Checks shared by the lessons' graded tests: a memory-bound kernel judged
// against this GPU's own copy bandwidth, and a launch the GPU must refuse.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>

#include "course/testing/timed_calls.hpp"

namespace course::testing {

// The environment variable in which the grader hands both processes of a
// graded run the free device memory it measured (bytes, in decimal).
inline constexpr const char* gpu_memory_budget_variable = "COURSE_GPU_MEMORY_BUDGET";

// The device memory the tests may plan with: under the grader, the free
// memory it measured before the tests started (gpu_memory_budget_variable,
// the same figure in the student's program and in the judge, which run side
// by side); run on its own, the free memory now (cudaMemGetInfo).
std::size_t gpu_memory_budget();

// How many elements of `element_bytes` each fit in `arrays` arrays while
// leaving three quarters of gpu_memory_budget() alone, capped at `most`. On a
// GPU too small to reach the cap, the size follows the memory, and the two
// processes of a graded run agree on it.
std::size_t elements_that_fit(std::size_t most, int arrays, std::size_t element_bytes);

// Times `work`'s calls from the GPU's own record (timed_calls.hpp; `bytes` is
// what one call reads plus writes) and fails unless they reach `min_share` of
// the device-to-device copy bandwidth measured on this GPU with buffers of
// `copy_bytes`. `advice` says what usually costs the speed.
void expect_bandwidth_share(const timed_calls& work, double bytes, std::size_t copy_bytes, double min_share,
                            const std::string& advice);

// A speed test's figure in one line, said whether it passes or not ("4353
// GB/s, 103% of this GPU's copy bandwidth; 60% is needed"): the report shows
// the judge's beside a passed speed test, so a student sees the margin and
// an instructor can read every threshold's margin off `grader verify`. The
// last one said in a test counts.
void report_figure(const std::string& line);
// The figure said during the test now ending, emptied for the next (the harness's).
std::string take_reported_figure();

// Calls `launch` (which launches with a configuration no GPU accepts, such as
// more than 1024 threads in a block) and fails unless it throws the runtime's
// refusal as a course::cuda_error. `what` describes the call for the message.
void expect_launch_refused(const std::function<void()>& launch, const std::string& what);

}  // namespace course::testing
