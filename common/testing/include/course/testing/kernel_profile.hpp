#pragma once
// Speed figures that the student's process cannot write: for a test declared
// with GRADED_PERF_TEST_PROFILED, the grader runs the student's program under
// Nsight Compute (ncu) and writes down, from outside that program, every
// kernel that ran during the test, how long it took on the GPU, and where its
// code came from: the student's library ("own"), the test program itself
// ("harness"), or anywhere else, a library such as cuBLAS ("foreign").
// The judge reads that list and takes the figure from it.
//
//   const auto ms = observe_kernel_ms("matmul_tiled 2048^3", "matmul_tiled.cu", 12,
//                                     [&] { return time_of_12_calls_ms() / 12; });
//
// - In the student's program: runs `measure_ms` (the GPU time per call, as the
//   program measures it) and records it, like observe_measured.
// - In the judge, with a profile: the GPU time per call of the kernels
//   compiled from `source`: their total over the test, divided by `calls`.
//   The test fails, and the result is empty, when no kernel compiled from
//   `source` ran ("no kernel of yours ran inside matmul_tiled"), when fewer
//   than `calls` of them ran (the work was not done on every call), or when a
//   kernel that is not from the student's code or the test ran during the
//   test ("cuBLAS ran inside matmul_tiled").
// - In the judge without a profile (no ncu on this machine: the grader says
//   so in the report), and anywhere else: the recorded or measured figure.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace course::testing {

std::optional<double> observe_kernel_ms(std::string_view what, const std::string& source, int calls,
                                        const std::function<double()>& measure_ms);

// The grader's file, beside the test's claim: <evidence file name> + this.
inline constexpr const char* kernel_profile_suffix = ".kernels.json";

}  // namespace course::testing
