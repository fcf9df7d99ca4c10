#pragma once
// course::event owns a cudaEvent_t: a marker placed in a stream. It completes
// when the work queued before it has finished, which makes it a timer (two
// events) and a dependency (another stream waits on it).
#include <cuda_runtime_api.h>

#include <chrono>
#include <memory>
#include <type_traits>

#include "course/error.hpp"

namespace course {

class event {
public:
    // Events time by default; pass cudaEventDisableTiming for a cheaper
    // dependency-only event.
    explicit event(unsigned flags = cudaEventDefault) {
        cudaEvent_t raw = nullptr;
        CUDA_CHECK(cudaEventCreateWithFlags(&raw, flags));
        handle_.reset(raw);
    }

    cudaEvent_t get() const noexcept { return handle_.get(); }
    operator cudaEvent_t() const noexcept { return get(); }

    void record(cudaStream_t stream = nullptr) { CUDA_CHECK(cudaEventRecord(get(), stream)); }
    void synchronize() const { CUDA_CHECK(cudaEventSynchronize(get())); }
    bool ready() const {
        cudaError_t status = cudaEventQuery(get());
        if (status == cudaErrorNotReady) return false;
        CUDA_CHECK(status);
        return true;
    }

    // GPU time from `earlier` to this event; both must have completed.
    std::chrono::duration<float, std::milli> since(const event& earlier) const {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, earlier.get(), get()));
        return std::chrono::duration<float, std::milli>(ms);
    }

private:
    struct destroy {
        void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
    };
    std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, destroy> handle_;
};

}  // namespace course
