#pragma once
// Helper processes, seen from the driver. A graded test's work must be done
// by the test program's own process, where the GPU's record is taken: a
// helper it starts (forked before main(), working on the same arrays through
// CUDA IPC) would do the work unseen. In the sandbox, course-threads-only
// refuses every new process (process_refusals.hpp). Outside it, during each
// timed test the grader asks the driver's management library (NVML) every
// few milliseconds which processes hold a context on the GPU, and notes
// those of the test program's process tree: more than one fails the test.
//
// NVML numbers processes as the machine's first PID namespace does; seen
// from another one (a container), none of its numbers is the tree's, and
// nothing is found (the check then proves nothing, and claims nothing).
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace grader {

// The processes holding a compute context on the GPU at `pci_bus_id` now;
// empty where NVML is missing or does not know the device.
std::vector<int> gpu_context_holders(const std::string& pci_bus_id);

// Samples, from construction to stop(), which processes of the tree under
// `root` hold a context on the GPU.
class gpu_helper_watch {
public:
    gpu_helper_watch(std::string pci_bus_id, int root);
    ~gpu_helper_watch();
    gpu_helper_watch(const gpu_helper_watch&) = delete;
    gpu_helper_watch& operator=(const gpu_helper_watch&) = delete;

    // Stops sampling; returns each process seen holding a context, with its
    // name (/proc/PID/comm, read when it was seen).
    std::map<int, std::string> stop();

private:
    struct state;
    std::unique_ptr<state> state_;
};

// The failure for a timed test during which `holders` (more than one) held
// a GPU context: "2 processes of your program held the GPU ...".
std::string describe_gpu_helpers(const std::map<int, std::string>& holders);

}  // namespace grader
