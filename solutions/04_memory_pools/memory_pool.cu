// Lesson 04: a caching allocator, reference solution.
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

namespace {

// Anything larger would overflow when rounded up (and wrap around to 0).
constexpr std::size_t largest_request = SIZE_MAX - (pool_granularity - 1);

// 400 -> 512, 512 -> 512, 513 -> 1024; bytes <= largest_request.
std::size_t round_up(std::size_t bytes) {
    return (bytes + pool_granularity - 1) / pool_granularity * pool_granularity;
}

// Every block the pool holds from its upstream.
struct block {
    std::size_t size;     // rounded: what the block really is
    cudaStream_t stream;  // in use: allocated for it; free: freed on it
    bool in_use;
    bool pinned;          // pinned host memory: reused only once `freed` has completed
    // Pinned blocks only: recorded on the stream at every deallocate (created
    // at the first one). The event owns its cudaEvent_t and destroys it.
    std::optional<course::event> freed{};
};

// Whether `p` is pinned host memory (cudaMallocHost), which the host reads and
// writes directly. Asked once a block, when it comes from the upstream. Memory
// CUDA does not know (the tests' fake upstream of malloc memory) is not, and
// without a GPU nothing is.
bool is_pinned_host(const void* p) {
    if (!course::has_device()) return false;
    cudaPointerAttributes attributes{};
    CUDA_CHECK(cudaPointerGetAttributes(&attributes, p));
    return attributes.type == cudaMemoryTypeHost;
}

// Free device blocks are found by (stream they were freed on, size). A
// std::map of a handful of keys is a few comparisons; nothing is allocated on
// the hot path because the vectors keep their capacity.
using free_key = std::pair<cudaStream_t, std::size_t>;

}  // namespace

struct memory_pool::state {
    course::memory_resource* upstream;
    std::size_t limit = 0;
    std::size_t used = 0;    // sum of the sizes of the blocks in use
    std::size_t total = 0;   // sum of the sizes of all blocks held
    std::size_t n_free = 0;  // number of free blocks

    // Every block held, so deallocate can check what it is given.
    std::unordered_map<void*, block> blocks;
    // The free blocks of device memory, newest last: the most recently used
    // block is the one most likely still in the caches and TLBs.
    std::map<free_key, std::vector<void*>> free;
    // The free blocks of pinned host memory, by size, oldest first: the
    // oldest is the one most likely done with its copies.
    std::map<std::size_t, std::vector<void*>> free_pinned;
    // Created on first use: only a hand-over between streams needs it, so a
    // pool used on one stream makes no CUDA call at all on its hot path.
    std::optional<course::event> handoff;

    // A free block of `size` freed on `stream`, taken out of the free list;
    // nullptr if there is none.
    void* take_free(cudaStream_t stream, std::size_t size) {
        const auto it = free.find({stream, size});
        if (it == free.end() || it->second.empty()) return nullptr;
        void* p = it->second.back();
        it->second.pop_back();
        --n_free;
        return p;
    }

    // A free block of `size` freed on another stream, made safe for `stream`:
    // `stream` waits (on the GPU, the host does not) for everything queued on
    // the other stream so far, which includes the work that last used the
    // block. nullptr if there is none.
    void* take_from_other_stream(cudaStream_t stream, std::size_t size) {
        for (auto& [key, list] : free) {
            if (key.second != size || key.first == stream || list.empty()) continue;
            if (!handoff) handoff.emplace(cudaEventDisableTiming);
            handoff->record(key.first);
            CUDA_CHECK(cudaStreamWaitEvent(stream, handoff->get(), 0));
            return take_free(key.first, size);
        }
        return nullptr;
    }

    // A free pinned block of `size` that no copy reads any more: the event
    // recorded when it was freed has completed (cudaEventQuery), so the host
    // and every stream may use it at once. nullptr if there is none; the
    // caller then takes a new block rather than wait.
    void* take_done_pinned(std::size_t size) {
        const auto it = free_pinned.find(size);
        if (it == free_pinned.end()) return nullptr;
        std::vector<void*>& list = it->second;
        for (auto candidate = list.begin(); candidate != list.end(); ++candidate) {
            if (!blocks.at(*candidate).freed->ready()) continue;
            void* p = *candidate;
            list.erase(candidate);
            --n_free;
            return p;
        }
        return nullptr;
    }

    // Gives every free block back to the upstream. A block leaves the books
    // only once the upstream took it, so a failure part-way loses nothing.
    void release_free_blocks() {
        for (auto& [key, list] : free) release(list, key.second);
        for (auto& [size, list] : free_pinned) release(list, size);
        free.clear();
        free_pinned.clear();
    }

    // Gives the free blocks of one list, all of `size`, back to the upstream.
    void release(std::vector<void*>& list, std::size_t size) {
        while (!list.empty()) {
            void* p = list.back();
            upstream->deallocate(p, size, blocks.at(p).stream);
            list.pop_back();
            blocks.erase(p);
            total -= size;
            --n_free;
        }
    }

    bool over_limit_with(std::size_t size) const {
        return limit != 0 && (total > limit || size > limit - total);
    }

    // A new block from the upstream, within the limit; giving back the free
    // blocks first is what turns "fragmented" into "fits".
    void* grow(std::size_t size, cudaStream_t stream) {
        if (over_limit_with(size)) {
            release_free_blocks();
            if (over_limit_with(size)) throw out_of_memory(size, total, limit);
        }
        void* p = nullptr;
        try {
            p = upstream->allocate(size, stream);
        } catch (const std::bad_alloc&) {
            release_free_blocks();
            try {
                p = upstream->allocate(size, stream);
            } catch (const std::bad_alloc&) {
                throw out_of_memory(size, total, limit);
            }
        }
        try {
            blocks.emplace(p, block{size, stream, true, is_pinned_host(p)});
        } catch (...) {
            upstream->deallocate(p, size, stream);  // no bookkeeping, no block: give it back
            throw;
        }
        total += size;
        return p;
    }
};

memory_pool::memory_pool(course::memory_resource& upstream) : state_(std::make_unique<state>()) {
    state_->upstream = &upstream;
}

memory_pool::~memory_pool() {
    // Everything goes back, in use or not: the pool owns the upstream memory.
    for (const auto& [p, b] : state_->blocks) {
        try {
            state_->upstream->deallocate(p, b.size, b.stream);
        } catch (...) {
            // Destructors never throw; there is nobody left to tell.
        }
    }
}

void* memory_pool::do_allocate(std::size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return nullptr;
    state& s = *state_;
    if (bytes > largest_request) throw out_of_memory(bytes, s.total, s.limit);
    const std::size_t size = round_up(bytes);

    // 1. The hot path: a block freed on this stream. Stream order protects it.
    void* p = s.take_free(stream, size);
    // 2. A block freed on another stream, once this stream waits for that one.
    if (!p) p = s.take_from_other_stream(stream, size);
    // 3. Pinned host memory: a block its last copies are done with (see deallocate).
    if (!p) p = s.take_done_pinned(size);
    if (p) {
        block& b = s.blocks.at(p);
        b.in_use = true;
        b.stream = stream;
    } else {
        // 3. A new block from the upstream.
        p = s.grow(size, stream);
    }
    s.used += size;
    return p;
}

void memory_pool::do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) {
    if (!p) return;
    state& s = *state_;
    const auto it = s.blocks.find(p);
    if (it == s.blocks.end())
        throw std::invalid_argument("memory_pool::deallocate: this pointer did not come from this pool");
    block& b = it->second;
    if (!b.in_use)
        throw std::invalid_argument("memory_pool::deallocate: this block is already free (freed twice?)");
    if (bytes > b.size || round_up(bytes) != b.size)
        throw std::invalid_argument("memory_pool::deallocate: " + std::to_string(bytes) +
                                    " bytes, but this block was allocated with a size that rounds to " +
                                    std::to_string(b.size));
    if (b.pinned) {
        // Pinned host memory: stream order does not protect it. The host
        // writes it directly, at once, while a copy queued on `stream` may
        // still be waiting to read it. So mark the end of the work queued so
        // far with an event, and reuse the block only once that has completed.
        if (!b.freed) b.freed.emplace(cudaEventDisableTiming);
        b.freed->record(stream);
        s.free_pinned[b.size].push_back(p);
    } else {
        // Only the books change: kernels on `stream` may still use the block,
        // and the next allocate on `stream` will queue after them.
        s.free[{stream, b.size}].push_back(p);
    }
    b.in_use = false;
    b.stream = stream;
    s.used -= b.size;
    ++s.n_free;
}

std::size_t memory_pool::used_bytes() const { return state_->used; }
std::size_t memory_pool::free_bytes() const { return state_->total - state_->used; }
std::size_t memory_pool::total_bytes() const { return state_->total; }
std::size_t memory_pool::n_free_blocks() const { return state_->n_free; }

void memory_pool::free_all_blocks() { state_->release_free_blocks(); }

void memory_pool::set_limit(std::size_t bytes) { state_->limit = bytes; }
std::size_t memory_pool::limit() const { return state_->limit; }

}  // namespace lesson04
