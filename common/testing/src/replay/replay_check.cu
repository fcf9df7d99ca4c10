#include <cmath>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/launch.hpp"
#include "course/testing/call_replay.hpp"
#include "course/testing/result_check.hpp"

namespace course::testing {

namespace {

// Its name says whose it is: the harness's (timed_calls.cpp). result[0]:
// how many are far; result[1]: the first.
__global__ void course_harness_count_far(device_span<const float> got, device_span<const float> expected,
                                         device_span<const float> scale, double tolerance,
                                         unsigned long long* result) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < got.size(); i += stride) {
        const double g = got[i], e = expected[i];
        const double s = scale.empty() ? scale_without_magnitudes(e) : double{scale[i]};
        if (within_tolerance(g, e, s, tolerance)) continue;
        atomicAdd(&result[0], 1ull);
        atomicMin(&result[1], static_cast<unsigned long long>(i));
    }
}

__global__ void course_harness_fill_nan(device_span<float> data) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < data.size(); i += stride) data[i] = NAN;
}

}  // namespace

void fill_with_nan(device_span<float> data, cudaStream_t stream) {
    if (data.empty()) return;
    const unsigned threads = 256;
    const unsigned blocks = std::max(1u, std::min(blocks_for(data.size(), threads), 4096u));
    course_harness_fill_nan<<<blocks, threads, 0, stream>>>(data);
    CUDA_CHECK(cudaGetLastError());
}

far_values far_value_counter::count(device_span<const float> got, device_span<const float> expected,
                                   device_span<const float> scale, double tolerance, cudaStream_t stream) {
    if (got.size() != expected.size() || (!scale.empty() && scale.size() != got.size())) return {got.size(), 0};
    seen_.data()[0] = 0;
    seen_.data()[1] = ~0ull;
    CUDA_CHECK(cudaMemcpyAsync(result_.data(), seen_.data(), 2 * sizeof(unsigned long long), cudaMemcpyHostToDevice,
                               stream));
    const unsigned threads = 256;
    const unsigned blocks = std::max(1u, std::min(blocks_for(got.size(), threads), 4096u));
    course_harness_count_far<<<blocks, threads, 0, stream>>>(got, expected, scale, tolerance, result_.data());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(seen_.data(), result_.data(), 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                               stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const unsigned long long count = seen_.data()[0], first = seen_.data()[1];
    return {count, count ? first : 0};
}

}  // namespace course::testing
