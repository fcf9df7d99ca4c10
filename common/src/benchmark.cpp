#include "course/benchmark.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "course/device_array.hpp"
#include "course/device_info.hpp"

namespace course {

namespace {
using clock = std::chrono::steady_clock;

// Relative standard error of the mean: how well the mean is pinned down.
double relative_noise(const std::vector<double>& samples) {
    const statistics s = summarize(samples);
    if (s.n < 2 || s.mean == 0) return INFINITY;
    return s.stddev / std::sqrt(static_cast<double>(s.n)) / s.mean;
}

std::string line(const char* label, const statistics& s) {
    return fmt::format("{}: {:9.3f} us +/- {:7.3f} (min: {:9.3f} / max: {:9.3f}) us", label, s.mean,
                       s.stddev, s.min, s.max);
}

std::string human_bandwidth(double gbps) {
    return gbps >= 1000 ? fmt::format("{:.2f} TB/s", gbps / 1000) : fmt::format("{:.1f} GB/s", gbps);
}
}  // namespace

double benchmark_result::gigabytes_per_second() const {
    return bytes > 0 && gpu_us.median > 0 ? bytes / (gpu_us.median * 1e-6) / 1e9 : 0.0;
}

double benchmark_result::gigaflops() const {
    return flops > 0 && gpu_us.median > 0 ? flops / (gpu_us.median * 1e-6) / 1e9 : 0.0;
}

std::string benchmark_result::to_string(double copy_gbps, double peak_gbps) const {
    const std::string indent(name.size() + 3, ' ');
    std::string out = fmt::format("{} :  {}\n{}{}", name, line("CPU  ", cpu_us), indent,
                                  line("GPU-0", gpu_us));
    std::vector<std::string> rates;
    if (const double gbps = gigabytes_per_second(); gbps > 0) {
        std::string rate = human_bandwidth(gbps);
        if (copy_gbps > 0) rate += fmt::format(" = {:.0f}% of measured copy", 100 * gbps / copy_gbps);
        if (peak_gbps > 0) rate += fmt::format(", {:.0f}% of peak", 100 * gbps / peak_gbps);
        rates.push_back(rate);
    }
    if (const double gflops = gigaflops(); gflops > 0) {
        rates.push_back(gflops >= 1000 ? fmt::format("{:.2f} TFLOP/s", gflops / 1000)
                                       : fmt::format("{:.1f} GFLOP/s", gflops));
    }
    for (const auto& rate : rates) out += "\n" + indent + rate;
    return out;
}

benchmark_result benchmark(const std::function<void(cudaStream_t)>& work,
                           const benchmark_options& options) {
    cudaStream_t stream = options.stream;
    device_array<unsigned char> l2_flush;
    if (options.flush_l2) l2_flush = device_array<unsigned char>(query_device().l2_bytes);

    for (int i = 0; i < options.warmup; ++i) work(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<double> cpu, gpu;
    event_timer timer;
    const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(options.max_time);
    const int limit = options.repeat.value_or(options.max_samples);
    for (int i = 0; i < limit; ++i) {
        if (options.flush_l2)
            CUDA_CHECK(cudaMemsetAsync(l2_flush.data(), i & 0xFF, l2_flush.bytes(), stream));
        timer.start(stream);
        const auto host_start = clock::now();
        work(stream);
        const auto host_end = clock::now();
        timer.stop(stream);
        cpu.push_back(std::chrono::duration<double, std::micro>(host_end - host_start).count());
        gpu.push_back(1000.0 * timer.elapsed().count());

        if (options.repeat) continue;  // fixed count: no early stop
        const bool enough = static_cast<int>(gpu.size()) >= options.min_samples;
        if (enough && relative_noise(gpu) < options.target_relative_noise) break;
        if (enough && clock::now() > deadline) break;
    }
    return {options.name, summarize(cpu), summarize(gpu), options.bytes, options.flops};
}

}  // namespace course
