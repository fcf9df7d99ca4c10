#pragma once
// Kernels the lesson04 tests queue around the pool: a slow writer that keeps
// a block busy, a quick one, and a reader. Compiled by nvcc (test_kernels.cu) so the
// tests themselves stay C++.
#include <cuda_runtime_api.h>

#include <chrono>

#include "course/device_span.hpp"

namespace lesson04_tests {

// Queues a kernel that waits `delay` (GPU time), then sets every element of
// `data` to `value`: a user that holds on to its block for a while.
void launch_slow_fill(cudaStream_t stream, course::device_span<int> data, int value,
                      std::chrono::microseconds delay);

// Queues a kernel that sets every element of `data` to `value` at once.
void launch_fill(cudaStream_t stream, course::device_span<int> data, int value);

// Queues a kernel that sets to[i] = from[i] + add for every i < to.size().
void launch_add(cudaStream_t stream, course::device_span<const int> from, course::device_span<int> to, int add);

// Runs each kernel once and waits. CUDA loads a kernel on its first launch
// (lazy loading), and loading may wait for the kernels already running: a
// test that needs two kernels to overlap launches each once beforehand.
void warm_up_kernels();

}  // namespace lesson04_tests
