#include "course/start_gate.hpp"

#include <atomic>

#include "course/error.hpp"
#include "course/gpu_clock.cuh"

namespace course::bench {

namespace {

// One thread spins until the host writes its word, or gives up after
// `patience_ns` and says so.
__global__ void wait_for_the_host(const volatile unsigned* open, volatile unsigned* gave_up,
                                  unsigned long long patience_ns) {
    const unsigned long long since = gpu_nanoseconds();
    while (*open == 0) {
        if (gpu_nanoseconds() - since > patience_ns) {
            *gave_up = 1;
            return;
        }
    }
}

}  // namespace

start_gate::start_gate(std::chrono::milliseconds patience) : patience_(patience) {}

void start_gate::close(cudaStream_t stream) {
    volatile unsigned* flags = flags_.data();
    flags[0] = 0;
    flags[1] = 0;
    // Pinned memory is mapped into the GPU's address space (unified
    // addressing): the kernel reads and writes the host's words in place.
    unsigned* on_gpu = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&on_gpu), flags_.data(), 0));
    const auto patience_ns = static_cast<unsigned long long>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(patience_).count());
    wait_for_the_host<<<1, 1, 0, stream>>>(on_gpu, on_gpu + 1, patience_ns);
    CUDA_CHECK(cudaGetLastError());
}

void start_gate::open() {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // everything queued before the word
    static_cast<volatile unsigned*>(flags_.data())[0] = 1;
}

bool start_gate::gave_up() const { return static_cast<const volatile unsigned*>(flags_.data())[1] != 0; }

}  // namespace course::bench
