#pragma once
// Lesson 04 contract: a caching allocator, what exercises/04_memory_pools/
// memory_pool.cu implements. It behaves like CuPy's MemoryPool (device
// memory) and PinnedMemoryPool (pinned host memory): same rounding, same
// statistics.
//
//   lesson04::memory_pool pool;                     // device memory, from cudaMalloc
//   void* p = pool.allocate(400, stream);           // 512 bytes from the pool
//   pool.used_bytes();   // 512     pool.total_bytes();  // 512
//   pool.deallocate(p, 400, stream);                 // back to the pool, not to CUDA
//   pool.used_bytes();   // 0       pool.total_bytes();  // 512   pool.n_free_blocks(); // 1
//   pool.free_all_blocks();                          // now back to CUDA
//   pool.total_bytes();  // 0
//
// The rules, which the tests check exactly:
//  - Sizes round up to a multiple of 512 bytes (pool_granularity): a request
//    of 400 bytes takes a block of 512. A request of 0 bytes returns nullptr
//    and takes nothing; deallocate(nullptr, ...) does nothing.
//  - Size classes: a free block is reused only for a request that rounds to
//    its own size (a free 1024-byte block serves 513..1024, never 512 or 1536).
//  - used_bytes: the sizes of the blocks handed out and not yet given back.
//    total_bytes: everything the pool holds from its upstream (blocks in use
//    plus free blocks). free_bytes = total - used. n_free_blocks: how many
//    free blocks the pool keeps.
//  - allocate(bytes, s) looks, in this order, for a free block of that size
//    freed on s; then one freed on another stream (see stream safety); then
//    asks the upstream for a new block. Pinned host blocks follow their own
//    rule (see pinned host memory, below).
//  - Limit: with set_limit(L) (L > 0) the pool grows no further than L. A
//    request that needs a new block and would take total_bytes past L first
//    makes the pool give all its free blocks back to the upstream; if it
//    still does not fit, allocate throws lesson04::out_of_memory and changes
//    nothing else. The same when the upstream throws std::bad_alloc: give
//    back the free blocks, try once more, then throw out_of_memory. Nothing
//    leaks either way. (Reusing a free block never counts against the limit:
//    it does not change total_bytes.)
//  - deallocate of a pointer the pool did not hand out, of a block already
//    free, or with a size that rounds differently from the one allocated
//    throws std::invalid_argument and changes nothing.
//  - free_all_blocks gives every free block back to the upstream; blocks in
//    use stay. The destructor gives back everything, in use or not.
//
// Stream safety. deallocate(p, bytes, s) returns at once, while kernels queued
// on s may still be using p. The block may go straight back to a later
// allocate on the same stream s: the stream runs its work in order, so the
// new user starts after the old one ends, with no waiting. But it must not go
// to another stream t before the work queued on s has finished: either the
// pool makes t wait for it (record an event on s, cudaStreamWaitEvent on t)
// or it hands t a different block. Same-stream reuse must not wait at all.
// Streams used with a pool must outlive the blocks freed on them (call
// free_all_blocks before destroying such a stream).
//
// Pinned host memory (a pool over pinned_host_upstream()) is the exception to
// same-stream reuse. The host reads and writes it directly, outside stream
// order: after cudaMemcpyAsync(d, p, n, cudaMemcpyHostToDevice, s) and
// deallocate(p, n, s), a block handed straight back by allocate(n, s) could
// be overwritten by the host before the queued copy has read it. So
// deallocate of a pinned block records an event on s (one course::event per
// block, created once), and allocate, on any stream, reuses that block only
// once the event has completed (cudaEventQuery returns cudaSuccess);
// otherwise it takes another such block or a new one from the upstream. It
// never waits for the event. A block is pinned host memory when
// cudaPointerGetAttributes says cudaMemoryTypeHost: ask once, when it comes
// from the upstream (and not at all without a GPU, course::has_device():
// the tests' fake upstream hands out plain host memory, which is not
// pinned). Device memory keeps the rules above: no event, no CUDA call.
//
// Not thread-safe: one host thread uses a pool at a time.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "course/memory_resource.hpp"
#include "upstream.cuh"

namespace lesson04 {

// Every block is a multiple of this many bytes (CuPy's rounding).
inline constexpr std::size_t pool_granularity = 512;

class memory_pool : public course::memory_resource {
public:
    // A pool that draws from `upstream` (cudaMalloc by default; pass
    // pinned_host_upstream() for a pinned host pool). `upstream` must outlive
    // the pool.
    explicit memory_pool(course::memory_resource& upstream = cuda_malloc_upstream());
    ~memory_pool() override;

    // Arrays and other users keep pointers to the pool: it never moves.
    memory_pool(const memory_pool&) = delete;
    memory_pool& operator=(const memory_pool&) = delete;

    std::size_t used_bytes() const;
    std::size_t free_bytes() const;
    std::size_t total_bytes() const;
    std::size_t n_free_blocks() const;

    // Gives every free block back to the upstream.
    void free_all_blocks();

    // At most `bytes` held from the upstream; 0 removes the limit. Setting a
    // limit below total_bytes frees nothing, it only stops the pool growing.
    void set_limit(std::size_t bytes);
    std::size_t limit() const;

private:
    void* do_allocate(std::size_t bytes, cudaStream_t stream) override;
    void do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) override;

    // Your data structures: defined in memory_pool.cu, where you choose them.
    struct state;
    std::unique_ptr<state> state_;
};

}  // namespace lesson04
