#pragma once
// Inputs that change from one timed call to the next, and give nothing away.
// A timed test fills its inputs again before every call (outside the timed
// part), so a call that hands back what it computed last time hands back a
// wrong answer; and the judge draws its replays' inputs from the operating
// system's entropy, so a kernel cannot know them either.
//
// Not only the values change: each seed draws its own distribution (the
// share of negative values, the octaves the magnitudes span, where a few
// values 256 times larger lie), so a kernel cannot work out a sum from a
// sample, scale half the data up, or tell one call's inputs from another's
// by their statistics. Every value's mantissa has bits below the 10 that
// TF32 and FP16 keep (as tensor cores read their inputs), just above half a
// place: rounded to 10 bits, every value moves, and all the same way, which
// the checks see even in a sum of 2^28 of them (result_check.hpp).
//
// The values are a hash of (seed, index) made on the GPU, so 2^28 of them
// cost a fraction of a millisecond; fresh_value gives the same on the host.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "course/device_span.hpp"

namespace course::testing {

// Fills `data` with fresh_value(seed, i) for every i, on `stream`.
void fill_fresh(device_span<float> data, std::uint64_t seed, cudaStream_t stream = nullptr);

// The value fill_fresh puts at index i. Its seed's distribution: a share of
// negative values between 0.1 and 0.3 or 0.7 and 0.9, magnitudes spread
// evenly over 3 to 6 octaves starting between 2^-3 and 2^1, and about one
// value in 1024 made 256 times larger.
float fresh_value(std::uint64_t seed, std::size_t i);

// Replaces every element of each array by its magnitude, on `stream`: the
// judge's call on them gives the size its answer's rounding is measured
// against (result_check.hpp).
void take_magnitudes(const std::vector<device_span<const float>>& arrays, cudaStream_t stream = nullptr);

// How keep_ten_mantissa_bits drops the other 13: to nearest (ties away from
// zero, as cvt.rna.tf32.f32 and, within its range, a conversion to FP16),
// or cut (as a tensor core reads a float32 it is handed as TF32).
enum class mantissa_rounding { nearest, toward_zero };
// Rounds every element of each array to a 10-bit mantissa, on `stream`: the
// judge's call on them gives the answer at TF32's or FP16's precision, to
// tell a wrong answer of that precision from others (replayed_calls.cpp).
void keep_ten_mantissa_bits(const std::vector<device_span<const float>>& arrays, mantissa_rounding rounding,
                            cudaStream_t stream = nullptr);

// The elements of `data` at `positions`, read back to the host.
std::vector<float> read_at(device_span<const float> data, const std::vector<std::uint64_t>& positions);

}  // namespace course::testing
