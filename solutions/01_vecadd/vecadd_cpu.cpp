// Lesson 01, part 2: vector addition on the CPU, reference solution.
#include "vecadd_cpu.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

namespace lesson01 {

// Adds one chunk: a plain loop over contiguous elements, which the compiler
// turns into SIMD instructions (8 floats at a time with AVX2).
static void add_chunk(const float* a, const float* b, float* c, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) c[i] = a[i] + b[i];
}

void vecadd_cpu(std::span<const float> a, std::span<const float> b, std::span<float> c, unsigned threads) {
    const std::size_t n = c.size();
    if (a.size() < n || b.size() < n)
        throw std::invalid_argument("vecadd_cpu: a and b need at least c.size() elements");

    // One thread per core, unless the chunks would be too small to pay for
    // starting a thread.
    const std::size_t wanted = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t used = std::clamp<std::size_t>(n / min_elements_per_thread, 1, wanted);

    // Chunks of n / used elements; the first n % used chunks take one more,
    // so every element is in exactly one chunk.
    const std::size_t base = n / used, extra = n % used;
    std::vector<std::thread> helpers;
    helpers.reserve(used - 1);
    std::size_t begin = 0;
    for (std::size_t t = 0; t < used; ++t) {
        const std::size_t count = base + (t < extra ? 1 : 0);
        if (t + 1 < used)
            helpers.emplace_back(add_chunk, a.data() + begin, b.data() + begin, c.data() + begin, count);
        else
            add_chunk(a.data() + begin, b.data() + begin, c.data() + begin, count);  // this thread's share
        begin += count;
    }
    for (auto& helper : helpers) helper.join();
}

}  // namespace lesson01
