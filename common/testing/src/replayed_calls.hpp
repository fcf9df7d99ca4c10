#pragma once
// The judge's replay of a test's timed calls (timed_calls.hpp, TRUST.md item
// 9): each call the student's program recorded, launched again in the
// judge's process from the student's device code (call_replay.hpp) on new
// inputs, checked in every element, timed. Private to timed_calls.cpp.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "course/testing/gpu_record.hpp"
#include "course/testing/timed_calls.hpp"

namespace course::testing::detail {

// Where the test's arrays lie in this process: address and bytes of each,
// as the student's program records them and the judge compares.
std::vector<std::uint64_t> placement(const timed_calls& work);

// The median replay's GPU time in milliseconds; nullopt after the test has
// failed saying why (a replay that computes the wrong answer, a call that
// cannot be replayed). `student_arrays` is placement() in the student's program.
std::optional<double> replay_calls(const timed_calls& work, const gpu_record& record,
                                   const std::vector<std::uint64_t>& student_arrays, cudaStream_t stream);

}  // namespace course::testing::detail
