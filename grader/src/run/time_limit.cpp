#include "run/time_limit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "course/temp_dir.hpp"
#include "system/process.hpp"
#include "system/process_tree.hpp"

namespace grader {

namespace {
const char* endless_kernel =
    "A kernel that never ends looks like this: a loop whose condition never changes, or a __syncthreads() "
    "that not every thread of the block reaches.";

// nvidia-smi's answer to `arguments`, or nullopt if it is not there or fails.
std::optional<std::string> ask_nvidia_smi(const std::vector<std::string>& arguments) {
    const auto smi = find_program("nvidia-smi");
    if (!smi) return std::nullopt;
    course::temp_dir scratch("grader-time-limit");
    std::vector<std::string> argv{smi->string()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const exit_status status = run_command(argv, scratch / "smi.log");
    if (status.signaled || status.code != 0) return std::nullopt;
    return file_text(scratch / "smi.log");
}

// A percentage as nvidia-smi prints it ("37", " 37"); nullopt for "-" or "[N/A]".
std::optional<int> percent_in(const std::string& text) {
    std::size_t at = 0;
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    int percent = 0, digits = 0;
    for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) && digits < 3; ++at, ++digits)
        percent = percent * 10 + (text[at] - '0');
    if (digits == 0 || percent > 100) return std::nullopt;
    return percent;
}

std::vector<std::string> words_of(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

}  // namespace

std::optional<int> gpu_busy_percent(const std::string& pci_bus_id) {
    if (pci_bus_id.empty()) return std::nullopt;
    const auto answer =
        ask_nvidia_smi({"--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-i", pci_bus_id});
    return answer ? percent_in(*answer) : std::nullopt;
}

std::optional<int> processes_gpu_busy_percent(const std::string& pci_bus_id, const std::vector<int>& pids) {
    if (pci_bus_id.empty() || pids.empty()) return std::nullopt;
    // One sample of per-process utilisation: a header line names the columns
    // ("# gpu pid type sm mem ..."), then one line per process, "-" for none.
    const auto answer = ask_nvidia_smi({"pmon", "-c", "1", "-s", "u", "-i", pci_bus_id});
    if (!answer) return std::nullopt;
    std::istringstream lines(*answer);
    std::optional<std::size_t> pid_column, sm_column;
    std::optional<int> total;
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> words = words_of(line);
        if (words.empty()) continue;
        if (words.front() == "#") {
            if (pid_column) continue;  // the second header line holds units
            words.erase(words.begin());
            for (std::size_t i = 0; i < words.size(); ++i) {
                if (words[i] == "pid") pid_column = i;
                if (words[i] == "sm") sm_column = i;
            }
            continue;
        }
        if (!pid_column || !sm_column || words.size() <= std::max(*pid_column, *sm_column)) continue;
        int pid = 0;
        if (std::istringstream(words[*pid_column]) >> pid &&
            std::find(pids.begin(), pids.end(), pid) != pids.end())
            total = std::min(100, total.value_or(0) + percent_in(words[*sm_column]).value_or(0));
    }
    return total;
}

gpu_reading read_gpu_before_kill(const std::string& pci_bus_id, bool shared, int root) {
    gpu_reading seen;
    seen.busy = gpu_busy_percent(pci_bus_id);
    seen.shared = shared;
    if (shared && seen.busy.value_or(0) > 0)
        seen.test_busy = processes_gpu_busy_percent(pci_bus_id, process_and_descendants(root));
    return seen;
}

std::string what_the_stopped_test_was_doing(const gpu_reading& seen) {
    if (!seen.busy)
        return fmt::format(
            "Either its code on the host took that long (a loop that never ends, a wait for something that "
            "never comes), or a kernel did. {}",
            endless_kernel);
    const char* time_on_host =
        "the time went on the host, in the test's code around its GPU calls (work done on the CPU, a loop that "
        "never ends, a wait for something that never comes).";
    if (*seen.busy == 0)
        return fmt::format(
            "The GPU ran no kernel during the last moments before the limit (nvidia-smi: 0% busy), so no "
            "kernel was stuck: {}",
            time_on_host);
    if (!seen.shared)
        return fmt::format(
            "The GPU was running a kernel up to the limit (nvidia-smi: {}% busy just before it): a kernel that "
            "never ends, or one far too slow for this size. {}",
            *seen.busy, endless_kernel);
    if (!seen.test_busy)
        return fmt::format(
            "The GPU was {}% busy just before the limit, but other runs of the batch share it, so that does not "
            "show whether this test's kernel was running. {}",
            *seen.busy, endless_kernel);
    if (*seen.test_busy == 0)
        return fmt::format(
            "The test's program ran no kernel during the last moments before the limit (nvidia-smi pmon: 0% of "
            "the GPU, which other runs of the batch share), so no kernel of its was stuck: {}",
            time_on_host);
    return fmt::format(
        "The GPU was running a kernel up to the limit, and it was the test's (nvidia-smi pmon: its program had "
        "{}% of the GPU just before the limit, which other runs of the batch share): a kernel that never ends, "
        "or one far too slow for this size. {}",
        *seen.test_busy, endless_kernel);
}

}  // namespace grader
