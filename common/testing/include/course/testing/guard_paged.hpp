#pragma once
// Inputs whose end is the end of mapped memory, so that reading past them
// faults at once.
//
// A read past the end of an ordinary cudaMalloc array usually lands in
// memory the program owns (the allocator hands out large blocks), so a kernel
// that reads one element too far, and never uses it, still gives the right
// answer. It is undefined behaviour all the same, and with another
// allocation it crashes. Here the array is placed with the CUDA virtual
// memory API so that its last byte is the last byte of a mapped range, and
// the addresses right after it are reserved but never mapped:
//
//     [ mapped: slack | the array ][ reserved, unmapped: the guard ]
//
// A read (or write) of the guard is an illegal address: the kernel stops,
// the test fails, and the grader's compute-sanitizer rerun names the line.
//
// The start stays 16-byte aligned, as cudaMalloc's (256) would be, so that a
// kernel's 16-byte (float4) path is taken exactly as with ordinary memory:
// an array whose size is a multiple of 16 bytes ends on the guard itself,
// any other has at most 12 bytes (3 floats) of slack before it. The mapped
// bytes around the array hold NaN (all bits set), so a read of the slack
// still shows in the answer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "course/device_span.hpp"
#include "course/error.hpp"

namespace course::testing {

// `bytes` of device memory, starting on `alignment` bytes and ending as
// close to an unmapped guard as that allows (RAII).
class guard_paged_memory {
public:
    static constexpr std::size_t default_alignment = 16;
    explicit guard_paged_memory(std::size_t bytes, std::size_t alignment = default_alignment);
    ~guard_paged_memory();
    guard_paged_memory(guard_paged_memory&& other) noexcept;
    guard_paged_memory& operator=(guard_paged_memory&& other) noexcept;
    guard_paged_memory(const guard_paged_memory&) = delete;
    guard_paged_memory& operator=(const guard_paged_memory&) = delete;

    void* data() const { return data_; }  // nullptr for 0 bytes
    std::size_t bytes() const { return bytes_; }
    // The first address of the guard: the end, or a few bytes after it (the alignment).
    std::uintptr_t guard_start() const { return guard_; }

private:
    void release() noexcept;

    std::uintptr_t reserved_ = 0;     // the whole reserved range: mapped part, then the guard
    std::size_t reserved_bytes_ = 0;
    std::size_t mapped_bytes_ = 0;
    unsigned long long handle_ = 0;   // CUmemGenericAllocationHandle
    bool mapped_ = false;
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
    std::uintptr_t guard_ = 0;
};

// An array of n T on guard-paged memory: the same uses as device_array.
template <class T>
class guard_paged_array {
public:
    explicit guard_paged_array(std::size_t n = 0) : n_(n), memory_(n * sizeof(T)) {}

    static guard_paged_array from_host(const std::vector<T>& host) {
        guard_paged_array array(host.size());
        if (!host.empty())
            CUDA_CHECK(cudaMemcpy(array.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
        return array;
    }

    T* data() { return static_cast<T*>(memory_.data()); }
    const T* data() const { return static_cast<const T*>(memory_.data()); }
    std::size_t size() const { return n_; }
    device_span<T> view() { return {data(), n_}; }
    device_span<const T> view() const { return {data(), n_}; }
    std::uintptr_t guard_start() const { return memory_.guard_start(); }

    void fill_bytes(unsigned char value) {
        if (n_) CUDA_CHECK(cudaMemset(data(), value, n_ * sizeof(T)));
    }

    std::vector<T> to_host() const {
        std::vector<T> host(n_);
        if (n_) CUDA_CHECK(cudaMemcpy(host.data(), data(), n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }

private:
    std::size_t n_;
    guard_paged_memory memory_;
};

}  // namespace course::testing
