// Lesson 05: overlapping copies with compute, reference solution.
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
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= eccentric_anomaly.size()) return;
    const float m = mean_anomaly[i];  // read before the write: in and out may be the same memory
    float e = m;
    for (int round = 0; round < kepler_rounds; ++round) e = m + kepler_eccentricity * sinf(e);
    eccentric_anomaly[i] = e;
}

// Throws unless `pointer` is pinned host memory. cudaPointerGetAttributes
// says cudaMemoryTypeHost for cudaMallocHost and cudaHostRegister memory, and
// cudaMemoryTypeUnregistered for ordinary (pageable) memory.
void require_pinned(const void* pointer, const char* name) {
    cudaPointerAttributes attributes{};
    const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
    if (status == cudaErrorInvalidValue) {
        // Old drivers answer "invalid value" for pageable memory; clear the
        // error so that it does not surface at the next CUDA_CHECK.
        cudaGetLastError();
        attributes.type = cudaMemoryTypeUnregistered;
    } else {
        CUDA_CHECK(status);
    }
    if (attributes.type == cudaMemoryTypeHost) return;

    const char* what = attributes.type == cudaMemoryTypeDevice    ? "device memory"
                       : attributes.type == cudaMemoryTypeManaged ? "managed memory"
                                                                  : "pageable host memory (new, malloc, std::vector)";
    throw std::invalid_argument(
        std::string("lesson05::pipelined_transform: ") + name + " is " + what +
        ", not pinned host memory. Copies from pageable memory are staged by the CPU through a "
        "driver buffer and may hold the host in each copy, so the pipeline loses most of its "
        "overlap. Allocate it with course::pinned_array<float> "
        "(cudaMallocHost) or pin it with cudaHostRegister.");
}

void transform(course::device_span<const float> in, course::device_span<float> out,
               cudaStream_t stream) {
    if (out.empty()) return;  // a grid of 0 blocks is an invalid launch
    constexpr unsigned threads = 256;
    kepler_kernel<<<course::blocks_for(out.size(), threads), threads, 0, stream>>>(in, out);
    CUDA_CHECK(cudaGetLastError());
}

void serial_transform(const float* host_in, float* host_out, std::size_t n) {
    if (n == 0) return;
    course::stream stream;
    course::device_array<float> data(n);
    // One stream: each step starts only when the one before it has finished.
    CUDA_CHECK(cudaMemcpyAsync(data.data(), host_in, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    transform(data.view(), data.view(), stream);  // in place
    CUDA_CHECK(cudaMemcpyAsync(host_out, data.data(), n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    stream.synchronize();  // host_out is only ready once the last copy is done
}

void pipelined_transform(const float* host_in, float* host_out, std::size_t n, int num_streams,
                         int num_chunks, pipeline_trace* trace) {
    if (num_streams < 1 || num_chunks < 1)
        throw std::invalid_argument("lesson05::pipelined_transform: num_streams and num_chunks must be at least 1, got " +
                                    std::to_string(num_streams) + " and " + std::to_string(num_chunks));
    if (n == 0) return;
    // Checked before anything is queued, so a refused call changes nothing.
    require_pinned(host_in, "host_in");
    require_pinned(host_out, "host_out");

    // Round up: with s = n / num_chunks the last n % num_chunks elements
    // would belong to no chunk.
    const std::size_t chunk_size = (n + num_chunks - 1) / static_cast<std::size_t>(num_chunks);

    // Each stream owns one chunk-sized device buffer. Chunks that share a
    // stream also share its buffer safely: a stream runs its work in order,
    // so chunk c + num_streams is only copied in after chunk c was copied out.
    // Device memory is num_streams chunks, however large n is.
    std::vector<course::stream> streams(num_streams);
    std::vector<course::device_array<float>> buffers;
    for (int s = 0; s < num_streams; ++s) buffers.emplace_back(chunk_size);

    for (int c = 0; c < num_chunks; ++c) {
        const std::size_t begin = static_cast<std::size_t>(c) * chunk_size;
        if (begin >= n) break;  // the remaining chunks are empty
        const std::size_t count = std::min(chunk_size, n - begin);
        const int s = c % num_streams;
        cudaStream_t stream = streams[s];
        const course::device_span<float> chunk = buffers[s].view().first(count);

        // Three steps on one stream: they run in this order, and asynchronously
        // to the host, which goes straight on to queue the next chunk. The
        // copies are only truly asynchronous because the host side is pinned.
        traced(trace, step::h2d, s, c, stream, [&] {
            CUDA_CHECK(cudaMemcpyAsync(chunk.data(), host_in + begin, count * sizeof(float),
                                       cudaMemcpyHostToDevice, stream));
        });
        traced(trace, step::kernel, s, c, stream, [&] { transform(chunk, chunk, stream); });
        traced(trace, step::d2h, s, c, stream, [&] {
            CUDA_CHECK(cudaMemcpyAsync(host_out + begin, chunk.data(), count * sizeof(float),
                                       cudaMemcpyDeviceToHost, stream));
        });
    }
    // Wait only at the end: a wait inside the loop would stop the host from
    // queueing the next chunks, and with it the overlap.
    for (const auto& stream : streams) stream.synchronize();
}

}  // namespace lesson05
