#include "report/kernel_table.hpp"

#include <fmt/format.h>

namespace grader {

std::string percent_figure(double v) {
    return v < 0 ? "-" : v >= 10 || v == 0 ? fmt::format("{:.0f}%", v) : fmt::format("{:.1f}%", v);
}

std::string duration_figure(double ns) {
    if (ns < 0) return "-";
    if (ns >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
    return fmt::format("{:.1f} us", ns / 1e3);
}

std::vector<std::string> profile_table(const std::vector<kernel_measure>& kernels) {
    std::vector<std::string> lines;
    lines.push_back(fmt::format("{:<42} {:>9} {:>5} {:>5} {:>11} {:>5} {:>13} {:>5}", "kernel (Nsight Compute)", "time",
                                "DRAM", "SM", "sector use", "bank", "occupancy", "local"));
    for (const auto& k : kernels) {
        const std::string origin = k.origin.empty() || k.origin == "yours" ? "" : " (" + k.origin + ")";
        std::string name = k.kernel;
        if (name.size() + origin.size() > 42) name = name.substr(0, 39 - origin.size()) + "...";
        name += origin;
        const std::string sectors = fmt::format("{}/{}", percent_figure(k.load_sector_use_pct), percent_figure(k.store_sector_use_pct));
        std::string occupancy = fmt::format("{} of {}", percent_figure(k.achieved_occupancy_pct), percent_figure(k.theoretical_occupancy_pct));
        std::string local = k.local_instructions < 0   ? "-"
                            : k.local_instructions == 0 ? "0"
                            : k.instructions > 0        ? percent_figure(100 * k.local_instructions / k.instructions)
                                                        : "yes";
        lines.push_back(fmt::format("{:<42} {:>9} {:>5} {:>5} {:>11} {:>5} {:>13} {:>5}", name, duration_figure(k.time_ns),
                                    percent_figure(k.dram_pct), percent_figure(k.sm_pct), sectors, percent_figure(k.shared_conflict_pct), occupancy,
                                    local));
        if (!k.occupancy_limit.empty())
            lines.push_back(fmt::format("{:<42} occupancy limited by {}; block {}, grid {}, {} registers/thread", "",
                                        k.occupancy_limit, k.block, k.grid, k.registers_per_thread));
    }
    return lines;
}

}  // namespace grader
