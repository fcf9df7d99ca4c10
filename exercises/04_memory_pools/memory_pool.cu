// Lesson 04: a caching allocator. Read lessons/04_memory_pools/README.md first;
// the rules are in lessons/04_memory_pools/memory_pool.cuh.
// Grade your work with:  grader run lesson04
#include "memory_pool.cuh"

#include <cstdint>
#include <map>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/event.hpp"

namespace lesson04 {

// Everything the pool knows. The header only declares `struct state`, so
// what goes in here is up to you.
struct memory_pool::state {
    course::memory_resource* upstream;  // where new blocks come from
    std::size_t limit = 0;              // 0: no limit

    // TODO(lesson04): add what the pool needs to remember, for example
    //  - the statistics: bytes in use, bytes held, number of free blocks;
    //  - every block held from the upstream (pointer -> size, in use or free,
    //    stream), so deallocate can check the pointer it is given;
    //  - the free blocks, found by (stream they were freed on, size);
    //  - a course::event for handing a block from one stream to another;
    //  - for pinned host memory: whether each block is pinned, one
    //    course::event per pinned block (recorded when it is freed), and the
    //    free pinned blocks by size.
};

memory_pool::memory_pool(course::memory_resource& upstream) : state_(std::make_unique<state>()) {
    state_->upstream = &upstream;
}

memory_pool::~memory_pool() {
    // TODO(lesson04): give every block the pool holds back to the upstream,
    // free or in use. A destructor must not throw: catch what deallocate
    // throws and carry on.
}

void* memory_pool::do_allocate(std::size_t bytes, cudaStream_t stream) {
    // TODO(lesson04): 1. 0 bytes: return nullptr. Round the size up to a
    //                    multiple of pool_granularity (mind the overflow).
    //                 2. A free block of that size freed on `stream`: take it.
    //                 3. Else one freed on another stream: make `stream` wait
    //                    for that stream (event + cudaStreamWaitEvent), take it.
    //                 4. Pinned host blocks instead: take one of that size only
    //                    if the event recorded at its free has completed
    //                    (cudaEventQuery returns cudaSuccess), on any stream.
    //                    Never wait for one.
    //                 5. Else a new block from the upstream, within the limit:
    //                    give the free blocks back and retry before throwing
    //                    out_of_memory (also when the upstream throws
    //                    std::bad_alloc). Note whether the new block is pinned
    //                    host memory (cudaPointerGetAttributes: type
    //                    cudaMemoryTypeHost; without a GPU, course::has_device()
    //                    is false and nothing is).
    //                 6. Update the statistics.
    // Then delete the line below.
    course::todo("lesson04::memory_pool::allocate in exercises/04_memory_pools/memory_pool.cu");
}

void memory_pool::do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) {
    // TODO(lesson04): nullptr does nothing. Check that p is a block in use
    // and that `bytes` rounds to its size (else std::invalid_argument), then
    // put it on the free list of `stream`. No CUDA call, no waiting.
    // Pinned host memory is the exception: the host writes it directly,
    // outside stream order, while a copy queued on `stream` may still have to
    // read it. Record the block's event on `stream`, and put the block where
    // allocate reuses it only once that event has completed. Still no waiting.
    course::todo("lesson04::memory_pool::deallocate in exercises/04_memory_pools/memory_pool.cu");
}

std::size_t memory_pool::used_bytes() const {
    // TODO(lesson04): the sizes of the blocks in use.
    course::todo("lesson04::memory_pool::used_bytes in exercises/04_memory_pools/memory_pool.cu");
}

std::size_t memory_pool::free_bytes() const {
    // TODO(lesson04): total_bytes() - used_bytes().
    course::todo("lesson04::memory_pool::free_bytes in exercises/04_memory_pools/memory_pool.cu");
}

std::size_t memory_pool::total_bytes() const {
    // TODO(lesson04): everything held from the upstream, in use or free.
    course::todo("lesson04::memory_pool::total_bytes in exercises/04_memory_pools/memory_pool.cu");
}

std::size_t memory_pool::n_free_blocks() const {
    // TODO(lesson04): how many free blocks the pool keeps.
    course::todo("lesson04::memory_pool::n_free_blocks in exercises/04_memory_pools/memory_pool.cu");
}

void memory_pool::free_all_blocks() {
    // TODO(lesson04): give every free block back to the upstream (on the
    // stream it was freed on); blocks in use stay.
    course::todo("lesson04::memory_pool::free_all_blocks in exercises/04_memory_pools/memory_pool.cu");
}

void memory_pool::set_limit(std::size_t bytes) { state_->limit = bytes; }
std::size_t memory_pool::limit() const { return state_->limit; }

}  // namespace lesson04
