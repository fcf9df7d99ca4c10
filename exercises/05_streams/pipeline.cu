// Lesson 05: overlapping copies with compute.
// Read lessons/05_streams/README.md first. Grade your work with:  grader run lesson05
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/launch.hpp"
#include "course/stream.hpp"
#include "streams.cuh"

namespace lesson05 {

// One thread per element: solve Kepler's equation by fixed-point rounds.
__global__ void kepler_kernel(course::device_span<const float> mean_anomaly,
                              course::device_span<float> eccentric_anomaly) {
    // TODO(lesson05): compute this thread's global index; if it lies inside
    //                 eccentric_anomaly, read m = mean_anomaly[i], start from
    //                 e = m, do exactly kepler_rounds rounds of
    //                 e = m + kepler_eccentricity * sinf(e), and store e.
    //                 (Read m before the store: in and out may be the same memory.)
}

// Throws std::invalid_argument unless `pointer` is pinned host memory.
void require_pinned(const void* pointer, const char* name) {
    // TODO(lesson05): ask cudaPointerGetAttributes what `pointer` is. Pinned
    //                 memory (cudaMallocHost, cudaHostRegister) reports
    //                 cudaMemoryTypeHost; ordinary pageable memory reports
    //                 cudaMemoryTypeUnregistered. For anything but
    //                 cudaMemoryTypeHost throw std::invalid_argument with a
    //                 message that names `name`, says it must be pinned, and
    //                 names the fix (course::pinned_array or cudaHostRegister).
    (void)pointer, (void)name;
}

void transform(course::device_span<const float> in, course::device_span<float> out,
               cudaStream_t stream) {
    // TODO(lesson05): return when out is empty; launch kepler_kernel on
    //                 `stream` with enough blocks for out.size() elements
    //                 (course::blocks_for); check the launch with
    //                 CUDA_CHECK(cudaGetLastError()). Then delete the two
    //                 lines below.
    (void)in, (void)out, (void)stream;
    course::todo("lesson05::transform in exercises/05_streams/pipeline.cu");
}

void serial_transform(const float* host_in, float* host_out, std::size_t n) {
    // TODO(lesson05): the baseline, everything in one piece on one stream:
    //                 a course::stream and a course::device_array<float>(n);
    //                 cudaMemcpyAsync host_in -> device, transform() in place,
    //                 cudaMemcpyAsync device -> host_out, then wait for the
    //                 stream. Nothing to do when n == 0. Then delete the
    //                 two lines below.
    (void)host_in, (void)host_out, (void)n;
    course::todo("lesson05::serial_transform in exercises/05_streams/pipeline.cu");
}

void pipelined_transform(const float* host_in, float* host_out, std::size_t n, int num_streams,
                         int num_chunks, pipeline_trace* trace) {
    // TODO(lesson05): 1. throw std::invalid_argument when num_streams or
    //                    num_chunks is below 1; return when n == 0;
    //                 2. require_pinned(host_in, "host_in") and the same for
    //                    host_out, before anything is queued;
    //                 3. chunk size s = ceil(n / num_chunks); num_streams
    //                    course::stream objects, and one device buffer of s
    //                    elements per stream (chunks on the same stream can
    //                    share it: a stream runs its work in order);
    //                 4. for each chunk c, on stream c % num_streams: the
    //                    host-to-device copy, transform(), the device-to-host
    //                    copy, all with the stream argument. No waiting
    //                    inside the loop;
    //                 5. after the loop, wait for every stream.
    //                 Optional (for the benchmark's timeline): wrap each step
    //                 in traced(trace, step::h2d, s, c, stream, [&] { ... });
    //                 see pipeline_trace.hpp. Then delete the two lines below.
    (void)host_in, (void)host_out, (void)n, (void)num_streams, (void)num_chunks, (void)trace;
    course::todo("lesson05::pipelined_transform in exercises/05_streams/pipeline.cu");
}

}  // namespace lesson05
