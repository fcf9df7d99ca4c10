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
    start.record(stream);
    work(stream);
    stop.record(stream);
    // The launches returned at once; the GPU may still be busy. Reading the
    // time before `stop` completed fails with cudaErrorNotReady.
    stop.synchronize();
    return stop.since(start);
}

void lesson05::add_dependency(cudaStream_t producer, cudaStream_t consumer, course::event& marker) {
    // The marker completes when everything queued on `producer` so far is done...
    marker.record(producer);
    // MUTANT: the marker is recorded, but the consumer never waits for it.
    (void)consumer;
}
