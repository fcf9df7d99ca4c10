#pragma once
// course::memory_resource: where memory comes from and where it goes back to,
// in stream order. The interface of every allocator in the course (lesson04's
// caching pool, cudaMalloc, cudaMallocAsync) and what device_array takes when
// it should not call cudaMalloc itself. The model is rmm's
// device_memory_resource and std::pmr::memory_resource: callers use the
// public allocate/deallocate, implementations override the private do_*.
//
// Stream order: memory from allocate(bytes, s) may be used by work queued on
// stream s after the call (and by the host once that is synchronised);
// deallocate(p, bytes, s) says "the work queued on s so far is the last to use
// p". It returns at once; the memory is reused only when that work is done.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace course {

class memory_resource {
public:
    virtual ~memory_resource() = default;

    // `bytes` bytes for work on `stream`. nullptr for 0 bytes; throws
    // std::bad_alloc (or a class derived from it) when out of memory.
    void* allocate(std::size_t bytes, cudaStream_t stream = nullptr) {
        return do_allocate(bytes, stream);
    }
    // Gives back `p`, which came from allocate(bytes, ...) of this resource,
    // after the work queued on `stream` so far. Does nothing for nullptr.
    void deallocate(void* p, std::size_t bytes, cudaStream_t stream = nullptr) {
        do_deallocate(p, bytes, stream);
    }

private:
    virtual void* do_allocate(std::size_t bytes, cudaStream_t stream) = 0;
    virtual void do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) = 0;
};

}  // namespace course
