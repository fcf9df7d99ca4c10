// Known-wrong lesson04 (grader/mutants): at the limit it throws out_of_memory at once,
// without first giving its free blocks back to the upstream.
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
};

// Free blocks are found by (stream they were freed on, size). A std::map of a
// handful of keys is a few comparisons; nothing is allocated on the hot path
// because the vectors keep their capacity.
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
    // The free blocks, newest last: the most recently used block is the
    // one most likely still in the caches and TLBs.
    std::map<free_key, std::vector<void*>> free;
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

    // Gives every free block back to the upstream. A block leaves the books
    // only once the upstream took it, so a failure part-way loses nothing.
    void release_free_blocks() {
        for (auto& [key, list] : free) {
            while (!list.empty()) {
                void* p = list.back();
                upstream->deallocate(p, key.second, key.first);
                list.pop_back();
                blocks.erase(p);
                total -= key.second;
                --n_free;
            }
        }
        free.clear();
    }

    bool over_limit_with(std::size_t size) const {
        return limit != 0 && (total > limit || size > limit - total);
    }

    // A new block from the upstream, within the limit; giving back the free
    // blocks first is what turns "fragmented" into "fits".
    void* grow(std::size_t size, cudaStream_t stream) {
        if (over_limit_with(size)) throw out_of_memory(size, total, limit);  // the mistake
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
            blocks.emplace(p, block{size, stream, true});
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
    // Only the books change: kernels on `stream` may still use the block,
    // and the next allocate on `stream` will queue after them.
    s.free[{stream, b.size}].push_back(p);
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
