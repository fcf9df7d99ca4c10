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

namespace detail {

// An upstream made of a pair of runtime calls, described by `Calls`:
//     static constexpr const char* name, * memory;    // for messages
//     static cudaError_t get(void** p, std::size_t);  // the allocation
//     static void put_back(void* p);                  // its free, checked
template <class Calls>
class runtime_resource : public course::memory_resource {
private:
    void* do_allocate(std::size_t bytes, cudaStream_t) override {
        void* p = nullptr;
        if (bytes > 0) {
            const cudaError_t got = Calls::get(&p, bytes);
            if (got != cudaSuccess) failed(got, bytes);
        }
        return p;  // nullptr for 0 bytes, as memory_resource promises
    }
    void do_deallocate(void* p, std::size_t, cudaStream_t) override {
        if (p != nullptr) Calls::put_back(p);
    }

    // The allocation call failed. Its error is also the thread's last error
    // (cudaGetLastError): this throw reports it, so it is taken off first, or
    // the next launch check would report it again against innocent code. Out
    // of memory is not sticky: once taken off, the next call works. It
    // throws out_of_memory, a std::bad_alloc, so that a pool can give back
    // what it caches and try again; anything else is a course::cuda_error.
    [[noreturn]] static void failed(cudaError_t status, std::size_t bytes) {
        (void)cudaGetLastError();
        if (status != cudaErrorMemoryAllocation) CUDA_CHECK(status);
        throw out_of_memory(std::string(Calls::name) + ": out of " + Calls::memory + " allocating " +
                            std::to_string(bytes) + " bytes");
    }
};

// Device memory: cudaMalloc / cudaFree.
struct device_calls {
    static constexpr const char* name = "cudaMalloc";
    static constexpr const char* memory = "device memory";
    static cudaError_t get(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
    // cudaFree waits for the whole device to finish its queued work first, so
    // work still queued that uses p is safe; but it stalls the host each time.
    static void put_back(void* p) { CUDA_CHECK(cudaFree(p)); }
};

// Page-locked ("pinned") host memory: cudaMallocHost / cudaFreeHost.
struct pinned_host_calls {
    static constexpr const char* name = "cudaMallocHost";
    static constexpr const char* memory = "pinned memory";
    static cudaError_t get(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
    static void put_back(void* p) {
        // A copy queued on any stream may still read p: wait for the device
        // before the memory goes back to the operating system.
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaFreeHost(p));
    }
};

}  // namespace detail

// Device memory straight from cudaMalloc / cudaFree: what a pool saves you
// from calling. Both are slow (tens of microseconds), and cudaFree waits for
// the whole device to finish its queued work before it frees, so freeing
// after asynchronous work is safe, but it stalls the host every time.
class cuda_malloc_resource : public detail::runtime_resource<detail::device_calls> {};

// Page-locked ("pinned") host memory from cudaMallocHost / cudaFreeHost: what
// the copy engines read and write directly (lesson05). The host indexes it
// like any other memory.
class pinned_host_resource : public detail::runtime_resource<detail::pinned_host_calls> {};

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
