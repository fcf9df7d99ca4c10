#pragma once
// Small kernels the lesson05 tests queue around the student's code: a kernel
// that takes a known time, and a producer/consumer pair for the dependency
// test. Compiled by nvcc (test_kernels.cu) so the tests themselves stay C++.
#include <cuda_runtime_api.h>

#include <chrono>

#include "course/device_span.hpp"

namespace lesson05_tests {

// Queues a one-thread kernel that runs for `duration` of GPU time (read from
// the GPU's global timer), then returns.
void launch_spin(cudaStream_t stream, std::chrono::microseconds duration);

// Queues a kernel that spins for `delay`, then sets every element of `data`
// to `value`: a slow producer.
void launch_slow_fill(cudaStream_t stream, course::device_span<int> data, int value,
                      std::chrono::microseconds delay);

// Queues a kernel that copies `from` into `to`: the consumer.
void launch_copy(cudaStream_t stream, course::device_span<const int> from, course::device_span<int> to);

}  // namespace lesson05_tests
