#pragma once
// Reproducible random inputs: the same seed gives the same numbers on every
// machine, however many cores drew them (std::mt19937_64 is fully specified,
// one generator per run of 2^16 numbers; the distribution is written out here
// because std::uniform_real_distribution is not).
#include <cstdint>
#include <vector>

namespace course {

// n floats uniform in [lo, hi).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// Mixes a name into a seed, so that each test draws its own numbers from one
// run-wide seed and rerunning one test alone reproduces them.
std::uint64_t derive_seed(std::uint64_t seed, const char* name);

}  // namespace course
