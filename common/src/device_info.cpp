#include "course/device_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/timing.hpp"

namespace course {

namespace {
// What the usual "no device" statuses mean in practice, and the fix.
std::string explain(cudaError_t status) {
    switch (status) {
        case cudaErrorNoDevice:
            return "no CUDA-capable GPU is visible (check nvidia-smi, and CUDA_VISIBLE_DEVICES)";
        case cudaErrorInsufficientDriver:
            return "no NVIDIA driver is loaded, or it is older than this CUDA runtime";
        case cudaErrorSystemDriverMismatch:
            return "the driver's kernel module and its user-space library differ: reboot or reinstall";
        case cudaErrorDevicesUnavailable:
            return "every GPU is busy in exclusive-process mode";
        default:
            return cudaGetErrorString(status);
    }
}

int attribute(cudaDeviceAttr attr, int ordinal) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
    return value;
}
}  // namespace

const device_presence& device_status() {
    static const device_presence presence = [] {
        device_presence p;
        const cudaError_t status = cudaGetDeviceCount(&p.count);
        cudaGetLastError();  // a failed query must not linger as this thread's last error
        if (status != cudaSuccess) {
            p.count = 0;
            p.status = cudaGetErrorName(status);
            p.meaning = explain(status);
            p.reason = fmt::format("cudaGetDeviceCount returned {} ({})", p.status, p.meaning);
        } else if (p.count == 0) {
            p.reason = "cudaGetDeviceCount found 0 devices";
        } else {
            p.available = true;
        }
        return p;
    }();
    return presence;
}

double device_properties::peak_bandwidth_gbps() const {
    // Clock in kHz, two transfers per clock, bus width in bits.
    return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0) / 1e9;
}

std::string device_properties::summary() const { return fmt::format("{} ({})", name, arch()); }

device_properties query_device(int ordinal) {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    device_properties d;
    d.ordinal = ordinal;
    d.name = prop.name;
    d.major = prop.major;
    d.minor = prop.minor;
    d.sm_count = prop.multiProcessorCount;
    d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    d.global_memory_bytes = prop.totalGlobalMem;
    d.copy_engines = prop.asyncEngineCount;
    d.max_threads_per_block = prop.maxThreadsPerBlock;
    // CUDA 13 removed cudaDeviceProp::memoryClockRate; the attribute remains.
    d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
    d.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
    CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
    return d;
}

double measured_copy_bandwidth_gbps(std::size_t bytes) {
    device_array<unsigned char> source(bytes), target(bytes);
    source.fill_bytes(1);
    event_timer timer;
    std::vector<double> seconds;
    for (int i = 0; i < 12; ++i) {
        timer.start();
        CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice));
        timer.stop();
        if (i >= 2) seconds.push_back(timer.elapsed().count() / 1e3);  // first two warm up
    }
    const double median = summarize(seconds).median;
    return 2.0 * static_cast<double>(bytes) / median / 1e9;  // read + write
}

std::string cuda_version_string(int version) {
    return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

}  // namespace course
