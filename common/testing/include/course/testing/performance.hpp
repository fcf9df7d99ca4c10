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

// Figures no right answer reaches: above them the work was not all done in
// the time, whatever the replay's output says (TRUST.md item 9).
// - A memory-bound call moves every byte it reads and writes: the best
//   kernels measured reach 107% of the copy bandwidth measured in the same
//   run (grader/textbooks/README.md); 150% is beyond any.
inline constexpr double most_copy_share = 1.5;
// - A float32 product on the CUDA cores: at most one fused multiply-add a
//   lane a clock. Lanes per SM by compute capability, from the Programming
//   Guide's table of arithmetic instruction throughput (32-bit floating-point
//   multiply-add): 64 for 6.0, 7.x and 8.0; 128 for the others from 5.0 on
//   (and for any newer one, so that the ceiling errs high).
int float32_lanes_per_sm(int major, int minor);
// The peak float32 rate in GFLOP/s (two operations a multiply-add) of `sms`
// SMs of that compute capability at `clock_khz`.
double peak_float32_gflops(int major, int minor, int sms, int clock_khz);
// The same for this GPU (cudaDevAttrClockRate: its peak clock).
double peak_float32_gflops();
// A failure message when `figure` is above `ceiling`, else empty: "...: the
// work was not all done". `what` names the figure ("4353 GB/s").
std::string beyond_ceiling(double figure, double ceiling, const std::string& what, const std::string& ceiling_is);

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
