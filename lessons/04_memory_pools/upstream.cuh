#pragma once
// Lesson 04, given code: the error a pool throws when it cannot allocate, and
// the two upstream allocators the pool draws from (cudaMalloc for device
// memory, cudaMallocHost for pinned host memory). Nothing to write here; read
// it as an example of a course::memory_resource.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <new>
#include <string>

#include "course/error.hpp"
#include "course/memory_resource.hpp"

namespace lesson04 {

// Out of memory: a pool past its limit, or an upstream that has no more. It
// is a std::bad_alloc, so code that handles "no memory" handles it too.
class out_of_memory : public std::bad_alloc {
public:
    // requested: bytes asked for; total: bytes the pool held; limit: its
    // limit (0 for none).
    out_of_memory(std::size_t requested, std::size_t total, std::size_t limit)
        : message_("out of memory allocating " + std::to_string(requested) + " bytes (the pool holds " +
                   std::to_string(total) + " bytes" +
                   (limit ? ", limit " + std::to_string(limit) + " bytes)" : ", no limit)")) {}
    explicit out_of_memory(std::string message) : message_(std::move(message)) {}

    const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string message_;
};

// Device memory straight from cudaMalloc / cudaFree: what a pool saves you
// from calling. Both are slow (tens of microseconds), and cudaFree waits for
// the whole device to finish its queued work before it frees, so freeing
// after asynchronous work is safe, but it stalls the host every time.
class cuda_malloc_resource : public course::memory_resource {
private:
    void* do_allocate(std::size_t bytes, cudaStream_t) override {
        if (bytes == 0) return nullptr;
        void* p = nullptr;
        const cudaError_t status = cudaMalloc(&p, bytes);
        if (status == cudaErrorMemoryAllocation) {
            cudaGetLastError();  // out of memory is not sticky: clear it for the next check
            throw out_of_memory("cudaMalloc: out of device memory allocating " + std::to_string(bytes) +
                                " bytes");
        }
        CUDA_CHECK(status);
        return p;
    }
    void do_deallocate(void* p, std::size_t, cudaStream_t) override {
        if (p) CUDA_CHECK(cudaFree(p));  // waits for the device: queued work may still use p
    }
};

// Page-locked ("pinned") host memory from cudaMallocHost / cudaFreeHost: what
// the copy engines read and write directly (lesson05). The host indexes it
// like any other memory.
class pinned_host_resource : public course::memory_resource {
private:
    void* do_allocate(std::size_t bytes, cudaStream_t) override {
        if (bytes == 0) return nullptr;
        void* p = nullptr;
        const cudaError_t status = cudaMallocHost(&p, bytes);
        if (status == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            throw out_of_memory("cudaMallocHost: out of pinned memory allocating " + std::to_string(bytes) +
                                " bytes");
        }
        CUDA_CHECK(status);
        return p;
    }
    void do_deallocate(void* p, std::size_t, cudaStream_t) override {
        if (!p) return;
        // A copy queued on any stream may still read p: wait for the device
        // before the memory goes back to the operating system.
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaFreeHost(p));
    }
};

// One shared instance of each (they hold no state).
inline course::memory_resource& cuda_malloc_upstream() {
    static cuda_malloc_resource resource;
    return resource;
}
inline course::memory_resource& pinned_host_upstream() {
    static pinned_host_resource resource;
    return resource;
}

}  // namespace lesson04
