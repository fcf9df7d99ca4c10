// Lesson 04: a wrapper over cudaMallocAsync's pools. The contract is in
// lessons/04_memory_pools/async_pool.cuh.
// Grade your work with:  grader run lesson04
#include "async_pool.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "course/error.hpp"
#include "upstream.cuh"

namespace lesson04 {

async_pool::async_pool(std::size_t release_threshold, int device) {
    // TODO(lesson04): 1. check cudaDevAttrMemoryPoolsSupported on `device`;
    //                 2. fill a cudaMemPoolProps (pinned allocation type, no
    //                    handle type, location: this device) and create the
    //                    pool with cudaMemPoolCreate; keep it in pool_;
    //                 3. set its release threshold.
    // Then delete the line below.
    course::todo("lesson04::async_pool::async_pool in exercises/04_memory_pools/async_pool.cu");
}

std::size_t async_pool::release_threshold() const {
    // TODO(lesson04): cudaMemPoolGetAttribute(..., cudaMemPoolAttrReleaseThreshold, &value)
    // with a 64-bit value.
    course::todo("lesson04::async_pool::release_threshold in exercises/04_memory_pools/async_pool.cu");
}

void async_pool::set_release_threshold(std::size_t bytes) {
    // TODO(lesson04): cudaMemPoolSetAttribute with a 64-bit value.
    course::todo("lesson04::async_pool::set_release_threshold in exercises/04_memory_pools/async_pool.cu");
}

std::size_t async_pool::used_bytes() const {
    // TODO(lesson04): the pool's cudaMemPoolAttrUsedMemCurrent.
    course::todo("lesson04::async_pool::used_bytes in exercises/04_memory_pools/async_pool.cu");
}

std::size_t async_pool::reserved_bytes() const {
    // TODO(lesson04): the pool's cudaMemPoolAttrReservedMemCurrent.
    course::todo("lesson04::async_pool::reserved_bytes in exercises/04_memory_pools/async_pool.cu");
}

void async_pool::trim_to(std::size_t bytes_to_keep) {
    // TODO(lesson04): cudaMemPoolTrimTo.
    course::todo("lesson04::async_pool::trim_to in exercises/04_memory_pools/async_pool.cu");
}

void* async_pool::do_allocate(std::size_t bytes, cudaStream_t stream) {
    // TODO(lesson04): 0 bytes: nullptr. Otherwise allocate from *this* pool
    // on `stream` (cudaMallocFromPoolAsync; cudaMallocAsync would use the
    // device's current pool). Turn cudaErrorMemoryAllocation into
    // out_of_memory (clear it with cudaGetLastError first); check the rest.
    course::todo("lesson04::async_pool::allocate in exercises/04_memory_pools/async_pool.cu");
}

void async_pool::do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) {
    // TODO(lesson04): nullptr does nothing; otherwise cudaFreeAsync on `stream`.
    course::todo("lesson04::async_pool::deallocate in exercises/04_memory_pools/async_pool.cu");
}

}  // namespace lesson04
