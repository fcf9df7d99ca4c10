// Lesson 05: timing with events and cross-stream dependencies, reference solution.
#include "course/error.hpp"
#include "course/event.hpp"
#include "streams.cuh"

course::milliseconds lesson05::time_with_events(cudaStream_t stream,
                                                const std::function<void(cudaStream_t)>& work) {
    course::event start, stop;
    // Both events go on the work's own stream. An event completes when the
    // work queued before it on its stream has finished, so `start` fires when
    // whatever was already queued is done, and `stop` when `work` is done.
    // MUTANT: the events go on the legacy default stream, which a non-blocking
    // stream does not synchronise with: they fire at once, before the work.
    start.record();
    work(stream);
    stop.record();
    // The launches returned at once; the GPU may still be busy. Reading the
    // time before `stop` completed fails with cudaErrorNotReady.
    stop.synchronize();
    return stop.since(start);
}

void lesson05::add_dependency(cudaStream_t producer, cudaStream_t consumer, course::event& marker) {
    // The marker completes when everything queued on `producer` so far is done...
    marker.record(producer);
    // ...and the consumer's later work waits for it on the GPU. The host does
    // not wait: cudaStreamWaitEvent only queues the wait. (The order matters:
    // waiting on an event before it is recorded waits for nothing.)
    CUDA_CHECK(cudaStreamWaitEvent(consumer, marker.get(), 0));
}
