#pragma once
// device_array<T>: owns `size` elements of device memory. Move-only (copying
// device memory is never implicit), uninitialised unless you ask, and with no
// host-side operator[]: reading device memory from the host is a copy, so it
// is spelled as one (to_host, copy_from). Kernels get a device_span from view().
//
// The memory comes from cudaMalloc unless a course::memory_resource is given
// (lesson04's pool, say): device_array<float> a(n, pool, stream) takes it from
// the pool for work on `stream` and gives it back there when `a` dies.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <vector>

#include "course/device_span.hpp"
#include "course/error.hpp"
#include "course/memory_resource.hpp"

namespace course {

namespace detail {
// Gives memory back where it came from: cudaFree without a resource, else the
// resource's deallocate on the stream the array was made for.
struct device_free {
    memory_resource* resource = nullptr;
    std::size_t bytes = 0;
    cudaStream_t stream = nullptr;

    void operator()(void* p) const noexcept {  // destructors never throw
        if (!resource) {
            cudaFree(p);
            return;
        }
        try {
            resource->deallocate(p, bytes, stream);
        } catch (...) {
            // Destructors never throw; a resource that refuses its own
            // pointer has a bug that its own tests must catch.
        }
    }
};
}  // namespace detail

template <class T>
class device_array {
    static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable types");

public:
    device_array() = default;

    // `size` uninitialised elements.
    explicit device_array(std::size_t size) : size_(size) {
        if (size == 0) return;
        void* raw = nullptr;
        CUDA_CHECK(cudaMalloc(&raw, size * sizeof(T)));
        memory_.reset(static_cast<T*>(raw));
    }

    // `size` uninitialised elements from `resource`, for work on `stream`;
    // given back to `resource` on `stream` when the array dies, so the
    // resource must outlive the array.
    device_array(std::size_t size, memory_resource& resource, cudaStream_t stream = nullptr)
        : size_(size) {
        if (size == 0) return;
        void* raw = resource.allocate(size * sizeof(T), stream);
        memory_ = std::unique_ptr<T, detail::device_free>(
            static_cast<T*>(raw), detail::device_free{&resource, size * sizeof(T), stream});
    }

    static device_array from_host(const T* host, std::size_t size) {
        device_array array(size);
        array.copy_from_host(host, size);
        return array;
    }
    static device_array from_host(const std::vector<T>& host) {
        return from_host(host.data(), host.size());
    }

    // Host -> device, device -> host and device -> device copies with
    // cudaMemcpy, on the default stream (CUDA Runtime API, "API
    // synchronization behavior"): device -> host returns when the copy is
    // done; host -> device once the host buffer may be reused (from pageable
    // memory the DMA may still be running); device -> device may return
    // before the copy has run. A non-blocking stream that reads the result
    // must wait for it (an event, or cudaDeviceSynchronize).
    void copy_from_host(const T* host, std::size_t count) {
        if (count > size_) throw std::out_of_range("device_array::copy_from_host: too many elements");
        if (count) CUDA_CHECK(cudaMemcpy(data(), host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void copy_from(device_span<const T> source) {
        if (source.size() > size_) throw std::out_of_range("device_array::copy_from: too many elements");
        if (!source.empty())
            CUDA_CHECK(cudaMemcpy(data(), source.data(), source.size_bytes(), cudaMemcpyDeviceToDevice));
    }
    void to_host(T* host, std::size_t count) const {
        if (count > size_) throw std::out_of_range("device_array::to_host: too many elements");
        if (count) CUDA_CHECK(cudaMemcpy(host, data(), count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    std::vector<T> to_host() const {
        std::vector<T> host(size_);
        to_host(host.data(), size_);
        return host;
    }

    // Sets every byte to `value` (0 for zeros; 0xFF makes every float a NaN).
    void fill_bytes(int value) {
        if (size_) CUDA_CHECK(cudaMemset(data(), value, bytes()));
    }

    device_span<T> view() noexcept { return {data(), size_}; }
    device_span<const T> view() const noexcept { return {data(), size_}; }

    T* data() noexcept { return memory_.get(); }
    const T* data() const noexcept { return memory_.get(); }
    std::size_t size() const noexcept { return size_; }
    std::size_t bytes() const noexcept { return size_ * sizeof(T); }
    bool empty() const noexcept { return size_ == 0; }

private:
    std::unique_ptr<T, detail::device_free> memory_;
    std::size_t size_ = 0;
};

}  // namespace course
