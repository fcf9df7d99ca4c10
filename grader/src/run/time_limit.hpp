#pragma once
// What a test stopped at its time limit was doing, said from what was seen
// rather than guessed. Just before the test program is killed, the grader
// asks the GPU's driver (nvidia-smi) how busy the GPU was over its last
// sample period (up to a second). A GPU that ran nothing was not stuck in a
// kernel: the time went on the host. A busy GPU that nobody else shares was
// running this test's kernel to the end. A GPU that a batch shares is asked
// per process (nvidia-smi pmon): how much of it the test's own processes had.
#include <optional>
#include <string>
#include <vector>

namespace grader {

// The share of the last sample period during which the GPU at `pci_bus_id`
// ran a kernel, in percent, from nvidia-smi; nullopt where it cannot be read.
std::optional<int> gpu_busy_percent(const std::string& pci_bus_id);

// The share of the last sample period during which the processes `pids`
// ran kernels on that GPU, in percent, from `nvidia-smi pmon`; nullopt where
// it cannot be read or none of them is listed (a GPU seen from another PID
// namespace lists numbers the grader does not know).
std::optional<int> processes_gpu_busy_percent(const std::string& pci_bus_id, const std::vector<int>& pids);

// What was read just before the kill.
struct gpu_reading {
    std::optional<int> busy;       // the whole GPU (nullopt: not read, or no GPU)
    bool shared = false;           // other runs of a batch use the GPU too
    std::optional<int> test_busy;  // the test's own processes, where read (shared GPUs only)
};

// Reads the GPU for a test whose program is the process tree under `root`.
gpu_reading read_gpu_before_kill(const std::string& pci_bus_id, bool shared, int root);

// The sentence that follows "stopped after N s".
std::string what_the_stopped_test_was_doing(const gpu_reading& seen);

}  // namespace grader
