#include "course/random.hpp"

#include <algorithm>
#include <random>

#include "course/cpus.hpp"

namespace course {

namespace {
// Each run of this many numbers has its own generator, seeded from the seed
// and the run's number: the numbers do not depend on how many threads drew
// them, and a large input is drawn by every core at once (2^24 floats take a
// single mt19937_64 a noticeable part of a second).
constexpr std::size_t numbers_per_run = std::size_t{1} << 16;

std::uint64_t run_seed(std::uint64_t seed, std::uint64_t run) {
    std::uint64_t z = seed + (run + 1) * 0x9e3779b97f4a7c15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
}  // namespace

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
    std::vector<float> values(n);
    const double scale = (static_cast<double>(hi) - lo) / 18446744073709551616.0;  // 2^64
    const std::size_t runs = (n + numbers_per_run - 1) / numbers_per_run;
    auto draw = [&](std::size_t first_run, std::size_t step) {
        for (std::size_t r = first_run; r < runs; r += step) {
            std::mt19937_64 engine(run_seed(seed, r));
            const std::size_t end = std::min(n, (r + 1) * numbers_per_run);
            for (std::size_t i = r * numbers_per_run; i < end; ++i)
                values[i] = static_cast<float>(lo + scale * static_cast<double>(engine()));
        }
    };
    const std::size_t threads = std::min<std::size_t>(runs / 4, static_cast<std::size_t>(usable_cpus()));
    if (threads <= 1) {
        draw(0, 1);
        return values;
    }
    run_parts(threads, [&](std::size_t t) { draw(t, threads); });
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
