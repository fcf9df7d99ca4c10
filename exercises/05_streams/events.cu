// Lesson 05: timing with events and cross-stream dependencies.
// Read lessons/05_streams/README.md first. Grade your work with:  grader run lesson05
#include "course/error.hpp"
#include "course/event.hpp"
#include "streams.cuh"

course::milliseconds lesson05::time_with_events(cudaStream_t stream,
                                                const std::function<void(cudaStream_t)>& work) {
    // TODO(lesson05): 1. create two course::event objects, start and stop;
    //                 2. record start on `stream`, call work(stream), record
    //                    stop on `stream` (the same stream: an event marks a
    //                    point in the stream it is recorded on);
    //                 3. wait for stop (stop.synchronize()): the work is still
    //                    running when work() returns;
    //                 4. return stop.since(start).
    // Then delete the two lines below.
    (void)stream, (void)work;
    course::todo("lesson05::time_with_events in exercises/05_streams/events.cu");
}

void lesson05::add_dependency(cudaStream_t producer, cudaStream_t consumer, course::event& marker) {
    // TODO(lesson05): record `marker` on the producer stream, then make the
    //                 consumer stream wait for it with cudaStreamWaitEvent
    //                 (checked with CUDA_CHECK). Do not block the host: no
    //                 synchronize calls here. Then delete the two lines below.
    (void)producer, (void)consumer, (void)marker;
    course::todo("lesson05::add_dependency in exercises/05_streams/events.cu");
}
