#pragma once
// The GPU's own clock, for kernels that must take a known time (a test that
// needs work still running, a benchmark's start gate). %globaltimer counts
// nanoseconds and reads the same on every SM; CUDA's events use it too.
// (clock64() counts the cycles of one SM, which change with the clock speed.)

namespace course {

// Nanoseconds on the GPU's global timer.
__device__ inline unsigned long long gpu_nanoseconds() {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}

// Keeps the calling thread busy until `ns` nanoseconds have passed.
__device__ inline void spin_for_nanoseconds(unsigned long long ns) {
    const unsigned long long start = gpu_nanoseconds();
    while (gpu_nanoseconds() - start < ns) {
    }
}

}  // namespace course
