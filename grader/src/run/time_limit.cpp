#include "run/time_limit.hpp"

#include <fmt/format.h>

#include <cctype>

#include "course/temp_dir.hpp"
#include "system/process.hpp"

namespace grader {

namespace {
const char* endless_kernel =
    "A kernel that never ends looks like this: a loop whose condition never changes, or a __syncthreads() "
    "that not every thread of the block reaches.";
}  // namespace

std::optional<int> gpu_busy_percent(const std::string& pci_bus_id) {
    if (pci_bus_id.empty()) return std::nullopt;
    const auto smi = find_program("nvidia-smi");
    if (!smi) return std::nullopt;
    course::temp_dir scratch("grader-time-limit");
    const exit_status status = run_command({smi->string(), "--query-gpu=utilization.gpu",
                                            "--format=csv,noheader,nounits", "-i", pci_bus_id},
                                           scratch / "smi.log");
    if (status.signaled || status.code != 0) return std::nullopt;
    const std::string text = file_text(scratch / "smi.log");
    std::size_t at = 0;
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    int percent = 0, digits = 0;
    for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && digits < 3; ++at, ++digits)
        percent = percent * 10 + (text[at] - '0');
    if (digits == 0 || percent > 100) return std::nullopt;
    return percent;
}

std::string what_the_stopped_test_was_doing(std::optional<int> busy, bool shared) {
    if (!busy)
        return fmt::format(
            "Either its code on the host took that long (a loop that never ends, a wait for something that "
            "never comes), or a kernel did. {}",
            endless_kernel);
    if (*busy == 0)
        return "The GPU ran no kernel during the last moments before the limit (nvidia-smi: 0% busy), so no "
               "kernel was stuck: the time went on the host, in the test's code around its GPU calls (work done "
               "on the CPU, a loop that never ends, a wait for something that never comes).";
    if (shared)
        return fmt::format(
            "The GPU was {}% busy just before the limit, but other runs of the batch share it, so that does not "
            "show whether this test's kernel was running. {}",
            *busy, endless_kernel);
    return fmt::format(
        "The GPU was running a kernel up to the limit (nvidia-smi: {}% busy just before it): a kernel that "
        "never ends, or one far too slow for this size. {}",
        *busy, endless_kernel);
}

}  // namespace grader
