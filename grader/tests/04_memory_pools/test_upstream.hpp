#pragma once
// An upstream allocator for the lesson04 tests that counts everything the
// pool asks of it and checks that the pool gives back exactly what it took.
// Without a real upstream it hands out host memory (malloc), so the pool's
// bookkeeping can be tested on a machine with no GPU; with a capacity it
// runs out of memory on purpose.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "course/memory_resource.hpp"

namespace lesson04_tests {

class counting_upstream : public course::memory_resource {
public:
    // Host memory, at most `capacity` bytes live at once.
    explicit counting_upstream(std::size_t capacity = SIZE_MAX) : capacity_(capacity) {}
    // Memory from `real` (cudaMalloc, cudaMallocHost), counted.
    explicit counting_upstream(course::memory_resource& real) : real_(&real) {}

    ~counting_upstream() override {
        // Whatever a broken pool left behind, so one test's leak does not
        // spill into the next.
        for (const auto& [p, bytes] : live_) release(p, bytes);
    }

    counting_upstream(const counting_upstream&) = delete;
    counting_upstream& operator=(const counting_upstream&) = delete;

    std::size_t allocations() const { return allocations_; }  // calls that succeeded
    std::size_t deallocations() const { return deallocations_; }
    std::size_t refused() const { return refused_; }  // out of memory on purpose
    std::size_t live_bytes() const { return live_bytes_; }
    std::size_t live_blocks() const { return live_.size(); }
    std::size_t last_request() const { return last_request_; }  // bytes of the last allocate
    bool holds(const void* p) const { return live_.count(const_cast<void*>(p)) != 0; }
    // Misuse seen: a pointer given back that was never handed out, a wrong size.
    const std::vector<std::string>& errors() const { return errors_; }

private:
    void* do_allocate(std::size_t bytes, cudaStream_t stream) override {
        last_request_ = bytes;
        if (bytes == 0) {
            errors_.push_back("the pool asked its upstream for 0 bytes");
            return nullptr;
        }
        if (bytes > capacity_ || live_bytes_ > capacity_ - bytes) {
            ++refused_;
            throw std::bad_alloc();
        }
        void* p = real_ ? real_->allocate(bytes, stream) : host_allocate(bytes);
        live_[p] = bytes;
        live_bytes_ += bytes;
        ++allocations_;
        return p;
    }

    void do_deallocate(void* p, std::size_t bytes, cudaStream_t stream) override {
        const auto it = live_.find(p);
        if (it == live_.end()) {
            errors_.push_back(
                "the pool gave its upstream a pointer it never got from it (or gave it back twice)");
            return;
        }
        if (it->second != bytes)
            errors_.push_back("the pool gave back a block of " + std::to_string(it->second) +
                              " bytes as one of " + std::to_string(bytes) + " bytes");
        live_bytes_ -= it->second;
        ++deallocations_;
        const std::size_t size = it->second;
        live_.erase(it);
        release(p, size, stream);
    }

    static void* host_allocate(std::size_t bytes) {
        // 256-byte aligned, like cudaMalloc's blocks (aligned_alloc wants a
        // multiple of the alignment).
        if (bytes > SIZE_MAX - 255) throw std::bad_alloc();
        void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
        if (!p) throw std::bad_alloc();
        return p;
    }

    void release(void* p, std::size_t bytes, cudaStream_t stream = nullptr) {
        if (real_) {
            try {
                real_->deallocate(p, bytes, stream);
            } catch (...) {
            }
        } else {
            std::free(p);
        }
    }

    course::memory_resource* real_ = nullptr;
    std::size_t capacity_ = SIZE_MAX;
    std::unordered_map<void*, std::size_t> live_;
    std::size_t live_bytes_ = 0;
    std::size_t allocations_ = 0, deallocations_ = 0, refused_ = 0, last_request_ = 0;
    std::vector<std::string> errors_;
};

}  // namespace lesson04_tests
