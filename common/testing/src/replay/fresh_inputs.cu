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

// A number in [0, 1) from the hash of (seed, salt): 24 bits.
__host__ __device__ float unit(std::uint64_t seed, std::uint64_t salt) {
    return static_cast<float>(mix(seed ^ mix(salt)) >> 40) * 0x1p-24f;
}

// The seed's distribution, drawn from the seed itself (salts far from any
// index), then element i's value drawn from it.
__host__ __device__ float value_at(std::uint64_t seed, std::uint64_t i) {
    // Negative values: a share of 0.1 to 0.3 or of 0.7 to 0.9, so that the
    // sum of the values is at least 0.4 of the sum of their magnitudes (a
    // bias of its terms shows in it).
    const float side = unit(seed, ~0ull);
    const float negative_share = side < 0.5f ? 0.1f + 0.4f * side : 0.7f + 0.4f * (side - 0.5f);
    const float lowest_octave = -3.0f + 4.0f * unit(seed, ~1ull);
    const float octaves = 3.0f + 3.0f * unit(seed, ~2ull);
    const std::uint64_t bits = mix(seed ^ mix(i));
    // The 23 bits of the mantissa: 10 drawn (those TF32 and FP16 keep), then
    // 13 just above a half of their last place (bit 12 set, the rest drawn,
    // never all zero): rounded to 10 bits every value moves, and all the same
    // way, by 2^-24 to 2^-11 of itself.
    const auto kept = static_cast<std::uint32_t>(bits >> 54);                      // 10 bits
    const auto below = 0x1000u | static_cast<std::uint32_t>((bits >> 41) & 0xFFF) | 1u;  // 13 bits
    const float mantissa = 1.0f + static_cast<float>((kept << 13) | below) * 0x1p-23f;  // [1, 2), exact
    const float octave = lowest_octave + octaves * static_cast<float>((bits >> 24) & 0xFFFF) * 0x1p-16f;
    float value = mantissa * exp2f(floorf(octave));  // exact: a power of two
    if (((bits >> 14) & 0x3FF) == 0) value *= 256.0f;  // 1 in 1024, exact
    const bool negative = static_cast<float>((bits >> 1) & 0x1FFF) * 0x1p-13f < negative_share;
    return negative ? -value : value;
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

namespace {
// Its name says whose it is: the harness's (timed_calls.cpp).
__global__ void course_harness_magnitudes(device_span<float> data) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < data.size(); i += stride) data[i] = fabsf(data[i]);
}

// Its name says whose it is: the harness's (timed_calls.cpp).
__global__ void course_harness_ten_mantissa_bits(device_span<float> data, bool nearest) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < data.size(); i += stride) {
        unsigned bits = __float_as_uint(data[i]);
        if (nearest) bits += 0x1000u;  // half of the 13 bits' place: ties away from zero
        data[i] = __uint_as_float(bits & 0xFFFFE000u);
    }
}

// Each non-empty array of the test's (handed as const because the call
// reads them), as the span a harness kernel writes.
template <class Kernel>
void for_each_array(const std::vector<device_span<const float>>& arrays, cudaStream_t stream, Kernel&& launch) {
    constexpr unsigned threads = 256;
    for (const auto& a : arrays) {
        if (a.size() == 0) continue;
        const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(blocks_for(a.size(), threads), 65536));
        launch(blocks, threads, device_span<float>(const_cast<float*>(a.data()), a.size()));
        CUDA_CHECK(cudaGetLastError());
    }
}

}  // namespace

void take_magnitudes(const std::vector<device_span<const float>>& arrays, cudaStream_t stream) {
    for_each_array(arrays, stream, [&](unsigned blocks, unsigned threads, device_span<float> a) {
        course_harness_magnitudes<<<blocks, threads, 0, stream>>>(a);
    });
}

void keep_ten_mantissa_bits(const std::vector<device_span<const float>>& arrays, mantissa_rounding rounding,
                            cudaStream_t stream) {
    for_each_array(arrays, stream, [&](unsigned blocks, unsigned threads, device_span<float> a) {
        course_harness_ten_mantissa_bits<<<blocks, threads, 0, stream>>>(a, rounding == mantissa_rounding::nearest);
    });
}

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
