// saxpy with the runtime API, for the lesson03 benchmark. The kernel is the
// text of lesson03::saxpy_source, and CMake compiles this file with
// -fmad=false as saxpy_driver has NVRTC do, so both run the same code.
#include "runtime_saxpy.hpp"

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/launch.hpp"
#include "course/stream.hpp"

namespace lesson03::bench {

namespace {
__global__ void saxpy(float a, const float* x, const float* y, float* out, size_t n) {
    size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + y[i];
    }
}
}  // namespace

void runtime_saxpy(float a, const float* x, const float* y, float* out, std::size_t n,
                   unsigned threads, cudaStream_t stream) {
    if (n == 0) return;
    saxpy<<<course::blocks_for(n, threads), threads, 0, stream>>>(a, x, y, out, n);
    CUDA_CHECK(cudaGetLastError());
}

std::vector<float> runtime_saxpy_app(float a, const std::vector<float>& x, const std::vector<float>& y,
                                     unsigned threads) {
    const std::size_t n{x.size()};
    const std::size_t bytes = sizeof(float) * n;
    const course::stream stream;
    course::device_array<float> x_device(n), y_device(n), out_device(n);
    CUDA_CHECK(cudaMemcpyAsync(x_device.data(), x.data(), bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(y_device.data(), y.data(), bytes, cudaMemcpyHostToDevice, stream));
    runtime_saxpy(a, x_device.data(), y_device.data(), out_device.data(), n, threads, stream);
    std::vector<float> out(n, 0.0f);
    CUDA_CHECK(cudaMemcpyAsync(out.data(), out_device.data(), bytes, cudaMemcpyDeviceToHost, stream));
    stream.synchronize();
    return out;
}

}  // namespace lesson03::bench
