#include "course/testing/fresh_inputs.hpp"

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/launch.hpp"

namespace course::testing {

namespace {

// SplitMix64's finaliser: consecutive indices give unrelated bits.
__host__ __device__ std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__host__ __device__ float value_at(std::uint64_t seed, std::uint64_t i) {
    const float offset = 0.5f * static_cast<float>(seed % 8);
    const float unit = static_cast<float>(mix(seed ^ mix(i)) >> 40) * 0x1p-24f;  // [0, 1), 24 bits
    return offset + unit;
}

// Its name says whose it is: the judge tells the harness's kernels from the
// student's by it (timed_calls.cpp).
__global__ void course_harness_fill_fresh(device_span<float> data, std::uint64_t seed) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < data.size(); i += stride)
        data[i] = value_at(seed, i);
}

// One launch and one copy for all the positions, rather than a copy each.
__global__ void course_harness_gather(device_span<const float> data, const std::uint64_t* positions,
                                      std::size_t count, float* values) {
    const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) values[k] = data[positions[k]];
}

}  // namespace

void fill_fresh(device_span<float> data, std::uint64_t seed, cudaStream_t stream) {
    if (data.size() == 0) return;
    constexpr unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(blocks_for(data.size(), threads), 65536));
    course_harness_fill_fresh<<<blocks, threads, 0, stream>>>(data, seed);
    CUDA_CHECK(cudaGetLastError());
}

float fresh_value(std::uint64_t seed, std::size_t i) { return value_at(seed, i); }

std::vector<float> read_at(device_span<const float> data, const std::vector<std::uint64_t>& positions) {
    std::vector<float> values(positions.size());
    if (positions.empty()) return values;
    // Kept for the next read (a timed test reads twice a call, 20 calls):
    // allocating and freeing device memory each time waits for the GPU.
    thread_local device_array<std::uint64_t> where;
    thread_local device_array<float> found;
    if (where.size() < positions.size()) {
        where = device_array<std::uint64_t>(positions.size());
        found = device_array<float>(positions.size());
    }
    CUDA_CHECK(cudaMemcpy(where.data(), positions.data(), positions.size() * sizeof(std::uint64_t),
                          cudaMemcpyHostToDevice));
    constexpr unsigned threads = 128;
    course_harness_gather<<<blocks_for(positions.size(), threads), threads>>>(data, where.data(), positions.size(),
                                                                             found.data());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(values.data(), found.data(), values.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return values;
}

}  // namespace course::testing
