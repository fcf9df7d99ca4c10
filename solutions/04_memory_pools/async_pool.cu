// Lesson 04: a wrapper over cudaMallocAsync's pools, reference solution.
#include "async_pool.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "course/error.hpp"
#include "upstream.cuh"

namespace lesson04 {

namespace {

std::uint64_t get_attribute(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
    std::uint64_t value = 0;  // the 64-bit attributes are cuuint64_t
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, attribute, &value));
    return value;
}

}  // namespace

async_pool::async_pool(std::size_t release_threshold, int device) {
    int supported = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
    if (!supported)
        throw std::runtime_error("device " + std::to_string(device) +
                                 " does not support cudaMallocAsync's memory pools");

    // Ordinary device memory on `device`, not shareable with other processes.
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t raw = nullptr;
    CUDA_CHECK(cudaMemPoolCreate(&raw, &props));
    pool_.reset(raw);
    set_release_threshold(release_threshold);
}

std::size_t async_pool::release_threshold() const {
    return get_attribute(get(), cudaMemPoolAttrReleaseThreshold);
}

void async_pool::set_release_threshold(std::size_t bytes) {
    std::uint64_t value = bytes;
    CUDA_CHECK(cudaMemPoolSetAttribute(get(), cudaMemPoolAttrReleaseThreshold, &value));
}

std::size_t async_pool::used_bytes() const { return get_attribute(get(), cudaMemPoolAttrUsedMemCurrent); }

std::size_t async_pool::reserved_bytes() const {
    return get_attribute(get(), cudaMemPoolAttrReservedMemCurrent);
}

void async_pool::trim_to(std::size_t bytes_to_keep) { CUDA_CHECK(cudaMemPoolTrimTo(get(), bytes_to_keep)); }

void* async_pool::do_allocate(std::size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return nullptr;
    void* p = nullptr;
    // From *this* pool: plain cudaMallocAsync would use the device's current pool.
    const cudaError_t status = cudaMallocFromPoolAsync(&p, bytes, get(), stream);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // not sticky: clear it so the next check does not see it
        throw out_of_memory("cudaMallocFromPoolAsync: out of device memory allocating " +
                            std::to_string(bytes) + " bytes");
    }
    CUDA_CHECK(status);
    return p;
}

void async_pool::do_deallocate(void* p, std::size_t, cudaStream_t stream) {
    // Queued in the stream: the memory returns to the pool when the stream
    // gets there, after the work that still uses it.
    if (p) CUDA_CHECK(cudaFreeAsync(p, stream));
}

}  // namespace lesson04
