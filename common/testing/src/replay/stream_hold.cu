#include <atomic>

#include "course/device_span.hpp"
#include "course/error.hpp"
#include "course/gpu_clock.cuh"
#include "course/testing/stream_order.hpp"

namespace course::testing {

namespace {

// A call that waits for the held stream itself (a cudaDeviceSynchronize
// inside it, or a cudaFree) cannot return, so the host never releases the
// hold: the hold gives up after this long, and such a call is only slow.
constexpr unsigned long long give_up_ns = 2'000'000'000;  // 2 s

// One thread. Its name says whose it is: the judge of a timed test tells the
// harness's kernels from the student's by it (timed_calls.cpp).
// The margin after release (stream_hold::default_margin_ns): long enough
// for a kernel queued on another stream while the stream was held to start
// and finish (the tests keep their sizes small), even when another process
// shares the GPU in time slices.
__global__ void course_harness_hold_stream(device_span<const unsigned> released, unsigned long long margin_ns) {
    // volatile: read the host's flag anew each time, not once into a register.
    const volatile unsigned* flag = released.data();
    const unsigned long long start = gpu_nanoseconds();
    while (*flag == 0 && gpu_nanoseconds() - start < give_up_ns) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(1000);  // host memory is read over the bus: a poll a microsecond is plenty
#endif
    }
    spin_for_nanoseconds(margin_ns);
}

}  // namespace

// The hold waits for the host, not for a fixed time: the call under test may
// take a while on the host (a slow machine, a sanitizer), and the stream must
// still be held when it returns. The flag lives in pinned host memory, which
// the GPU reads directly (with unified addressing every pinned allocation is
// mapped).
stream_hold::stream_hold(cudaStream_t stream, unsigned long long margin_ns)
    : stream_(stream), own_flag_(1), released_(own_flag_.data()) {
    start(margin_ns);
}

stream_hold::stream_hold(cudaStream_t stream, pinned_array<unsigned>& flag, unsigned long long margin_ns)
    : stream_(stream), released_(flag.data()) {
    start(margin_ns);
}

void stream_hold::start(unsigned long long margin_ns) {
    *static_cast<volatile unsigned*>(released_) = 0;
    void* flag = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&flag, released_, 0));
    course_harness_hold_stream<<<1, 1, 0, stream_>>>(
        device_span<const unsigned>(static_cast<const unsigned*>(flag), 1), margin_ns);
    CUDA_CHECK(cudaGetLastError());
}

void stream_hold::release() noexcept {
    // volatile: the store is made now, not kept in a register; the GPU's reads
    // over the bus see the host's caches.
    *static_cast<volatile unsigned*>(released_) = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// The kernel reads the flag until it ends: the memory may go only after that.
stream_hold::~stream_hold() {
    release();
    cudaStreamSynchronize(stream_);  // destructors never throw: a failure here is reported by the next check
}

}  // namespace course::testing
