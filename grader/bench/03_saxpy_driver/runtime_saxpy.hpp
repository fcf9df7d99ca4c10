#pragma once
// The benchmark's point of comparison: the same saxpy kernel compiled by nvcc
// and launched with <<<>>> through the runtime API, and the same whole
// program written with the runtime API.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace lesson03::bench {

// Queues saxpy<<<blocks, threads, 0, stream>>> over n elements.
void runtime_saxpy(float a, const float* x, const float* y, float* out, std::size_t n,
                   unsigned threads, cudaStream_t stream);

// saxpy_driver's twin: a stream, three cudaMallocs, copies in, the launch,
// the copy out, one synchronisation, everything freed.
std::vector<float> runtime_saxpy_app(float a, const std::vector<float>& x, const std::vector<float>& y,
                                     unsigned threads);

}  // namespace lesson03::bench
