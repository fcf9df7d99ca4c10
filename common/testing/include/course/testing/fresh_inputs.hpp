#pragma once
// Inputs that change from one timed call to the next. A timed test fills its
// inputs again before every call (outside the timed part), so a call that
// hands back what it computed last time hands back a wrong answer.
//
// The values are a hash of (seed, index) made on the GPU, so 2^28 of them
// cost a fraction of a millisecond. Each seed also shifts the values by its
// own offset (a multiple of 0.5 in [0, 3.5]): two calls in a row differ by
// much more than rounding, in every element and in any sum of them.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "course/device_span.hpp"

namespace course::testing {

// Fills `data` with fresh_value(seed, i) for every i, on `stream`.
void fill_fresh(device_span<float> data, std::uint64_t seed, cudaStream_t stream = nullptr);

// The value fill_fresh puts at index i: in [offset, offset + 1).
float fresh_value(std::uint64_t seed, std::size_t i);

// The elements of `data` at `positions`, read back to the host.
std::vector<float> read_at(device_span<const float> data, const std::vector<std::uint64_t>& positions);

}  // namespace course::testing
