#pragma once
// Lesson 05 contract: what exercises/05_streams/events.cu and pipeline.cu
// implement. Read lessons/05_streams/README.md first.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

#include "course/device_span.hpp"
#include "course/event.hpp"
#include "course/timing.hpp"
#include "pipeline_trace.hpp"

namespace lesson05 {

// ---------------------------------------------------------------- events.cu

// Times `work` on the GPU's own clock. Records an event on `stream`, calls
// work(stream) (which queues GPU work on that stream and returns at once),
// records a second event on `stream`, waits for it, and returns the GPU time
// between the two events.
//
// Only the work queued by `work` counts: work queued on `stream` before the
// call is not part of the measurement, even though the host waits for it.
course::milliseconds time_with_events(cudaStream_t stream,
                                      const std::function<void(cudaStream_t)>& work);

// A dependency between two streams, without blocking the host: work queued on
// `consumer` after this call starts only once all the work queued on
// `producer` before this call has finished. Records `marker` on `producer`
// and makes `consumer` wait for it. Returns at once.
void add_dependency(cudaStream_t producer, cudaStream_t consumer, course::event& marker);

// -------------------------------------------------------------- pipeline.cu

// The transform that the pipeline applies to every element. It solves
// Kepler's equation  E - e sin E = M  for the eccentric anomaly E of an orbit
// with eccentricity e = 0.5, given the mean anomaly M = in[i], by exactly
// kepler_rounds fixed-point rounds
//
//     E = M;   repeat kepler_rounds times:  E = M + e sin E;   out[i] = E
//
// (sinf in single precision). Each round shrinks the error at least by half,
// so 64 rounds reach float precision many times over. They are there on
// purpose: 64 sines per element make the kernel take about as long as the
// copies around it, which is when overlapping them pays.
inline constexpr float kepler_eccentricity = 0.5f;
inline constexpr int kepler_rounds = 64;

// out[i] = the transform of in[i] for every i < out.size(); in has at least
// out.size() elements and may be the same memory as out (in place). Launches
// on `stream` and returns at once; empty input launches nothing.
void transform(course::device_span<const float> in, course::device_span<float> out,
               cudaStream_t stream);

// The baseline: host_out[i] = transform of host_in[i] for i < n, done in one
// piece on one stream: copy all n elements to the GPU, transform them, copy
// them back, wait. Any host memory works (pinned is faster). Returns when
// host_out holds the result.
void serial_transform(const float* host_in, float* host_out, std::size_t n);

// The same result as serial_transform, pipelined. The n elements are split
// into num_chunks chunks (chunk c covers [c * s, min(n, (c + 1) * s)) with
// s = ceil(n / num_chunks); chunks past the end are empty). Each chunk's
// host-to-device copy, transform and device-to-host copy are queued, in that
// order, on stream c % num_streams of num_streams streams, so that one
// chunk's copies overlap other chunks' kernels. Returns when host_out holds
// the result.
//
// host_in and host_out must be pinned (page-locked) host memory:
// course::pinned_array, cudaMallocHost or memory registered with
// cudaHostRegister. Anything else throws std::invalid_argument: copies from
// pageable memory are staged by the CPU and may hold the host in each copy,
// so the pipeline would lose most of its overlap (the README explains why).
// num_streams < 1 or num_chunks < 1 throws std::invalid_argument. For n == 0
// nothing happens and the pointers are not looked at.
//
// `trace` is for the benchmark's timeline and is not graded: when it is not
// null, queue each step through lesson05::traced (pipeline_trace.hpp) so the
// benchmark can draw when every copy and kernel ran.
void pipelined_transform(const float* host_in, float* host_out, std::size_t n, int num_streams,
                         int num_chunks, pipeline_trace* trace = nullptr);

}  // namespace lesson05
