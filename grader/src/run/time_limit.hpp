#pragma once
// What a test stopped at its time limit was doing, said from what was seen
// rather than guessed. Just before the test program is killed, the grader
// asks the GPU's driver (nvidia-smi) how busy the GPU was over its last
// sample period (up to a second). A GPU that ran nothing was not stuck in a
// kernel: the time went on the host. A busy GPU that nobody else shares was
// running this test's kernel to the end.
#include <optional>
#include <string>

namespace grader {

// The share of the last sample period during which the GPU at `pci_bus_id`
// ran a kernel, in percent, from nvidia-smi; nullopt where it cannot be read.
std::optional<int> gpu_busy_percent(const std::string& pci_bus_id);

// The sentence that follows "stopped after N s": `busy` as read just before
// the kill (nullopt: not read, or no GPU), `shared`: other runs use the GPU.
std::string what_the_stopped_test_was_doing(std::optional<int> busy, bool shared);

}  // namespace grader
