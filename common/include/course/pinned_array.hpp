#pragma once
// pinned_array<T>: page-locked ("pinned") host memory. The GPU's copy engines
// read and write it directly, which is what lets cudaMemcpyAsync overlap with
// kernels; ordinary (pageable) memory is staged through a hidden buffer.
// Unlike device memory it lives on the host, so it is indexed like a vector.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

#include "course/error.hpp"

namespace course {

namespace detail {
struct cuda_free_host {
    void operator()(void* p) const noexcept { cudaFreeHost(p); }
};
}  // namespace detail

template <class T>
class pinned_array {
public:
    pinned_array() = default;
    explicit pinned_array(std::size_t size) : size_(size) {
        if (size == 0) return;
        void* raw = nullptr;
        CUDA_CHECK(cudaMallocHost(&raw, size * sizeof(T)));
        memory_.reset(static_cast<T*>(raw));
    }

    T& operator[](std::size_t i) noexcept { return memory_.get()[i]; }
    const T& operator[](std::size_t i) const noexcept { return memory_.get()[i]; }
    T* data() noexcept { return memory_.get(); }
    const T* data() const noexcept { return memory_.get(); }
    T* begin() noexcept { return data(); }
    T* end() noexcept { return data() + size_; }
    const T* begin() const noexcept { return data(); }
    const T* end() const noexcept { return data() + size_; }
    std::size_t size() const noexcept { return size_; }
    std::size_t bytes() const noexcept { return size_ * sizeof(T); }

private:
    std::unique_ptr<T, detail::cuda_free_host> memory_;
    std::size_t size_ = 0;
};

}  // namespace course
