#pragma once
// Lesson 01 contract, part 2: the same addition on the CPU, for the
// experiment "When does the GPU win?" (grader bench lesson01 --vs-cpu).
// What exercises/01_vecadd/vecadd_cpu.cpp implements.
#include <cstddef>
#include <span>

namespace lesson01 {

// c[i] = a[i] + b[i] for every i < c.size(), on the CPU; a and b have at
// least c.size() elements, or std::invalid_argument is thrown before
// anything is written.
//
// The work is split over `threads` CPU threads (0: one per core the machine
// has), each adding one contiguous chunk, and each chunk's loop is simple
// enough for the compiler to use SIMD instructions. Small arrays are added
// by the calling thread alone: starting a thread costs more than adding a
// few thousand floats. Returns once every element is written.
void vecadd_cpu(std::span<const float> a, std::span<const float> b, std::span<float> c,
                unsigned threads = 0);

// The fewest elements a chunk gets before vecadd_cpu uses another thread.
inline constexpr std::size_t min_elements_per_thread = std::size_t{1} << 16;

}  // namespace lesson01
