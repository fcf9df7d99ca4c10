// main() of every benchmark program: says plainly when there is no GPU, and
// records the device and its measured limits in the output's context, so a
// JSON result file says what it was measured on.
#include <fmt/format.h>

#include <cstdio>

#include "course/bench.hpp"

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (!course::has_device()) {
        std::printf("SKIPPED: no CUDA device: %s\n", course::device_status().reason.c_str());
        return 0;
    }
    const auto& gpu = course::bench::gpu();
    benchmark::AddCustomContext("device", gpu.device.name);
    benchmark::AddCustomContext("compute_capability", gpu.device.arch());
    benchmark::AddCustomContext("sm_count", std::to_string(gpu.device.sm_count));
    benchmark::AddCustomContext("l2_bytes", std::to_string(gpu.device.l2_bytes));
    benchmark::AddCustomContext("peak_bandwidth_gbps", fmt::format("{:.1f}", gpu.device.peak_bandwidth_gbps()));
    benchmark::AddCustomContext("copy_bandwidth_gbps", fmt::format("{:.1f}", gpu.copy_gbps));
    benchmark::AddCustomContext("cuda_driver", course::cuda_version_string(gpu.device.driver_version));
    benchmark::AddCustomContext("cuda_runtime", course::cuda_version_string(gpu.device.runtime_version));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
