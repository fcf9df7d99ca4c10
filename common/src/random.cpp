#include "course/random.hpp"

#include <random>

namespace course {

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
    std::mt19937_64 engine(seed);
    std::vector<float> values(n);
    const double scale = (static_cast<double>(hi) - lo) / 18446744073709551616.0;  // 2^64
    for (auto& v : values) v = static_cast<float>(lo + scale * static_cast<double>(engine()));
    return values;
}

std::uint64_t derive_seed(std::uint64_t seed, const char* name) {
    // FNV-1a over the name, mixed with the seed (splitmix64 finaliser).
    std::uint64_t h = 1469598103934665603ull;
    for (const char* c = name; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
    std::uint64_t z = seed + h + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace course
