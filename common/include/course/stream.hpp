#pragma once
// course::stream owns a cudaStream_t: created checked, destroyed automatically.
// Rule of zero: the unique_ptr's deleter does the clean-up, moves come free.
#include <cuda_runtime_api.h>

#include <memory>
#include <type_traits>

#include "course/error.hpp"

namespace course {

class stream {
public:
    // cudaStreamNonBlocking: the stream does not synchronise with the legacy
    // default stream (lesson05 explains why that matters).
    explicit stream(unsigned flags = cudaStreamNonBlocking) {
        cudaStream_t raw = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&raw, flags));
        handle_.reset(raw);
    }

    cudaStream_t get() const noexcept { return handle_.get(); }
    operator cudaStream_t() const noexcept { return get(); }  // pass where a cudaStream_t goes

    void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(get())); }

private:
    struct destroy {
        void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); }
    };
    std::unique_ptr<std::remove_pointer_t<cudaStream_t>, destroy> handle_;
};

}  // namespace course
