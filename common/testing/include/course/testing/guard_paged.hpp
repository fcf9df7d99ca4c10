#pragma once
// Inputs whose end (or start) is the end (or start) of mapped memory, so that
// reading past them faults at once.
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
// A second input of a test can put its guard before it instead
// (guard_side::before), so that a read before the start faults as well:
//
//     [ reserved, unmapped: the guard ][ mapped: the array | slack ]
//
// One array cannot have both: mapped memory comes in granules (2 MiB), and an
// array rarely fills a whole number of them.
//
// A named input also writes where it lies into the input map when the grader
// asks for one (input_map_variable: its compute-sanitizer reruns do), so that
// the address the tool reports can be told as "b[1000], one element past
// the end of b" rather than as a number.
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
#include <string_view>
#include <vector>

#include "course/device_span.hpp"
#include "course/error.hpp"
#include "course/testing/evidence.hpp"  // input_map_variable

namespace course::testing {

// Which end of the array the unmapped guard touches.
enum class guard_side {
    after,   // a read past the last element faults
    before,  // a read before the first element faults
};

// A range of addresses [begin, end).
struct address_range {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
};

// The input map: what the grader needs to name an address in a guard.
// `first` is the address of element 0; a vector is 1 row of `cols`; a
// matrix's rows start `pitch` elements apart.
struct guarded_input_entry {
    std::string_view name;
    const void* first = nullptr;
    std::size_t element_bytes = 0;
    std::size_t rows = 1;
    std::size_t cols = 0;
    std::size_t pitch = 0;
    bool matrix = false;
    address_range guard;
};
// Appends `entry` to the input map, when the grader asked for one.
void note_guarded_input(const guarded_input_entry& entry);

// `bytes` of device memory, starting on `alignment` bytes, with an unmapped
// guard right after its end (as close as the alignment allows) or right
// before its start (RAII).
class guard_paged_memory {
public:
    static constexpr std::size_t default_alignment = 16;
    explicit guard_paged_memory(std::size_t bytes, guard_side side = guard_side::after,
                                std::size_t alignment = default_alignment);
    ~guard_paged_memory();
    guard_paged_memory(guard_paged_memory&& other) noexcept;
    guard_paged_memory& operator=(guard_paged_memory&& other) noexcept;
    guard_paged_memory(const guard_paged_memory&) = delete;
    guard_paged_memory& operator=(const guard_paged_memory&) = delete;

    void* data() const { return data_; }  // nullptr for 0 bytes
    std::size_t bytes() const { return bytes_; }
    // The unmapped addresses: for guard_side::after they begin at the end,
    // or a few bytes after it (the alignment); for before, they end at the start.
    address_range guard() const { return guard_; }

private:
    void release() noexcept;

    std::uintptr_t reserved_ = 0;     // the whole reserved range: the mapped part and the guard
    std::size_t reserved_bytes_ = 0;
    std::uintptr_t mapped_ = 0;       // the mapped part
    std::size_t mapped_bytes_ = 0;
    unsigned long long handle_ = 0;   // CUmemGenericAllocationHandle
    bool is_mapped_ = false;
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
    address_range guard_;
};

// An array of n T on guard-paged memory: the same uses as device_array. A
// named one is an input the grader can name in a sanitizer's report.
template <class T>
class guard_paged_array {
public:
    guard_paged_array() : guard_paged_array(0) {}
    explicit guard_paged_array(std::size_t n, guard_side side = guard_side::after, std::string_view name = {})
        : n_(n), memory_(n * sizeof(T), side) {
        if (!name.empty() && n_ > 0)
            note_guarded_input({name, memory_.data(), sizeof(T), 1, n_, n_, false, memory_.guard()});
    }

    static guard_paged_array from_host(const std::vector<T>& host, guard_side side = guard_side::after,
                                       std::string_view name = {}) {
        guard_paged_array array(host.size(), side, name);
        if (!host.empty())
            CUDA_CHECK(cudaMemcpy(array.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
        return array;
    }

    T* data() { return static_cast<T*>(memory_.data()); }
    const T* data() const { return static_cast<const T*>(memory_.data()); }
    std::size_t size() const { return n_; }
    device_span<T> view() { return {data(), n_}; }
    device_span<const T> view() const { return {data(), n_}; }
    address_range guard() const { return memory_.guard(); }

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
