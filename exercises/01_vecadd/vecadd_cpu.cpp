// Lesson 01, part 2: vector addition on the CPU, to measure when the GPU wins
// (lessons/01_vecadd/README.md, "When does the GPU win?").
// Grade your work with:  grader run lesson01
#include "vecadd_cpu.hpp"

#include <stdexcept>
#include <thread>
#include <vector>

#include "course/error.hpp"

namespace lesson01 {

// Adds one chunk: a plain loop over contiguous elements, which the compiler
// turns into SIMD instructions (8 floats at a time with AVX2).
[[maybe_unused]] static void add_chunk(const float* a, const float* b, float* c, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) c[i] = a[i] + b[i];
}

void vecadd_cpu(std::span<const float> a, std::span<const float> b, std::span<float> c, unsigned threads) {
    // TODO(lesson01): 1. throw std::invalid_argument if a or b is shorter than c;
    //                 2. decide how many threads: `threads`, or
    //                    std::thread::hardware_concurrency() when it is 0, but
    //                    never so many that a chunk gets fewer than
    //                    min_elements_per_thread elements (and at least one);
    //                 3. split c into that many contiguous chunks that together
    //                    cover every element (the last one takes what is left
    //                    when the size does not divide evenly), start a
    //                    std::thread per chunk but one, add the last chunk on
    //                    this thread, and join the others.
    // Then delete the line below.
    course::todo("lesson01::vecadd_cpu in exercises/01_vecadd/vecadd_cpu.cpp");
}

}  // namespace lesson01
