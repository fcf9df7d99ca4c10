// A program that keeps the GPU and a CPU core busy and says how far each has
// got: "gpu <kernels finished> cpu <rounds>" every 10 ms, for 20 s. The
// pausing tests (test_gpu_pause.cpp) watch the GPU count stop while the CPU
// count goes on. `gpu_busy_program <ms>` first runs one kernel that long;
// `gpu_busy_program <ms> <recorder>` also records its GPU work the way a
// student's program records a timed test: the grader's recorder
// (grader/recorder, CUPTI) loaded and started before its first kernel.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "course/gpu_clock.cuh"

namespace {

__global__ void spin_for(unsigned long long nanoseconds) { course::spin_for_nanoseconds(nanoseconds); }

// Loads the recorder at `path` and starts a record that nobody reads; exits
// with 4 where it cannot.
void start_recording(const char* path) {
    void* recorder = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    using start_fn = int (*)(const char*, const char*);
    const auto start = recorder ? reinterpret_cast<start_fn>(dlsym(recorder, "course_gpu_record_start")) : nullptr;
    if (!start || start("/dev/null", "gpu_busy_program") != 0) std::exit(4);
}

}  // namespace

int main(int argc, char** argv) {
    const long long first_ms = argc > 1 ? std::atoll(argv[1]) : 0;
    if (argc > 2) {
        if (cudaFree(nullptr) != cudaSuccess) std::exit(2);
        start_recording(argv[2]);
    }
    std::atomic<long> kernels{0}, rounds{0};
    std::atomic<bool> stop{false};
    std::thread cpu([&] {
        volatile double x = 1;
        while (!stop) {
            for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
            ++rounds;
        }
    });
    std::thread gpu([&] {
        if (cudaFree(nullptr) != cudaSuccess) std::exit(2);
        if (first_ms > 0) {
            spin_for<<<1, 1>>>(first_ms * 1000000ULL);
            if (cudaDeviceSynchronize() != cudaSuccess) std::exit(3);
        }
        while (!stop) {
            spin_for<<<1, 1>>>(1000000ULL);  // 1 ms
            if (cudaDeviceSynchronize() != cudaSuccess) std::exit(3);
            ++kernels;
        }
    });
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
        std::printf("gpu %ld cpu %ld\n", kernels.load(), rounds.load());
        std::fflush(stdout);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop = true;
    cpu.join();
    gpu.join();
    return 0;
}
