#pragma once
// A start gate for timing GPU work with events.
//
// An event queued before a launch runs as soon as the GPU reaches it, which is
// often while the host is still inside the launch call. The time between the
// two events then includes a few microseconds of the host's own work: about a
// tenth of a 50 us kernel. The gate closes the stream with a one-thread kernel
// that waits for the host's word. The host queues the start event, the work
// and the stop event behind it, then opens the gate, and the GPU runs the
// three back to back. (nvbench's "blocking kernel" does the same.)
//
// Work that waits for the GPU from the host (cudaDeviceSynchronize, cudaFree,
// a synchronous copy) would wait for the gate while the gate waits for the
// host. The gate gives up after its patience, so nothing hangs, and
// gave_up() says it happened: such work is then timed without the gate.
#include <cuda_runtime_api.h>

#include <chrono>

#include "course/pinned_array.hpp"

namespace course::bench {

class start_gate {
public:
    explicit start_gate(std::chrono::milliseconds patience = std::chrono::milliseconds(100));

    // Queues the gate on `stream`: what is queued on it afterwards waits until
    // open(). The gate before must have finished (its stream synchronized).
    void close(cudaStream_t stream);
    // Lets the queued work go.
    void open();
    // Whether the last gate stopped waiting before open(). Read it after the
    // stream has been synchronized.
    bool gave_up() const;

private:
    // Host memory the GPU reads and writes directly: [0] is the host's word
    // (1: open), [1] the gate's (1: it gave up). volatile, because each side
    // changes what the other is reading in a loop.
    pinned_array<unsigned> flags_{2};
    std::chrono::milliseconds patience_;
};

}  // namespace course::bench
