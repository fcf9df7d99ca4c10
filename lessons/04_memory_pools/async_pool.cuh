#pragma once
// Lesson 04 contract, part 2: a thin wrapper over CUDA's own stream-ordered
// allocator (cudaMallocAsync / cudaFreeAsync), what exercises/04_memory_pools/
// async_pool.cu implements. The driver keeps the pool (a cudaMemPool_t); we
// create our own, so that its settings and statistics are ours alone.
//
//   lesson04::async_pool pool(/*release_threshold=*/64 << 20);
//   void* p = pool.allocate(1 << 20, stream);   // cudaMallocFromPoolAsync on stream
//   pool.deallocate(p, 1 << 20, stream);        // cudaFreeAsync on stream
//
// Allocation and free are operations *in the stream*: the memory is valid for
// work queued on the stream after the allocate, and is reusable once the
// stream reaches the free. The pool keeps memory it got from the operating
// system ("reserved") for reuse; at each synchronisation (stream, event or
// device) it gives back to the system whatever it holds beyond the release
// threshold. The default threshold, 0, gives everything unused back at every
// synchronisation; a large threshold keeps it, like lesson04::memory_pool.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <type_traits>

#include "course/memory_resource.hpp"

namespace lesson04 {

class async_pool : public course::memory_resource {
public:
    // A new pool of device memory on `device` that keeps up to
    // `release_threshold` reserved bytes across synchronisations.
    explicit async_pool(std::size_t release_threshold = 0, int device = 0);

    std::size_t release_threshold() const;
    void set_release_threshold(std::size_t bytes);

    // Bytes handed out and not yet freed (cudaMemPoolAttrUsedMemCurrent).
    std::size_t used_bytes() const;
    // Bytes the pool holds from the system, in use or not
    // (cudaMemPoolAttrReservedMemCurrent).
    std::size_t reserved_bytes() const;
    // Gives unused memory back to the system until at most `bytes_to_keep`
    // stay reserved (cudaMemPoolTrimTo).
    void trim_to(std::size_t bytes_to_keep);

    cudaMemPool_t get() const noexcept { return pool_.get(); }

private:
    // allocate(0) returns nullptr without calling CUDA; deallocate(nullptr)
    // does nothing. Out of memory throws lesson04::out_of_memory.
    void* do_allocate(std::size_t bytes, cudaStream_t stream) override;
    void do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) override;

    // The pool is destroyed with the object (rule of zero). Memory still
    // allocated from it stays valid until freed.
    struct destroy {
        void operator()(cudaMemPool_t pool) const noexcept { cudaMemPoolDestroy(pool); }
    };
    std::unique_ptr<std::remove_pointer_t<cudaMemPool_t>, destroy> pool_;
};

}  // namespace lesson04
