#pragma once
// The CPUs this process may use, and work spread over them.
#include <cstddef>
#include <functional>

namespace course {

// How many CPUs this process may run on: its affinity (a Slurm task's, a
// container's, taskset's), which can be fewer than the machine has. Work
// spread over threads (random inputs, large comparisons, the batch's
// graders) is sized by it.
int usable_cpus();

// Runs part(0) .. part(parts - 1), each on a thread of its own, the first on
// the calling thread, and returns once all are done. A part for which no
// thread can be had (a limit on processes, RLIMIT_NPROC in a batch) runs on
// the calling thread instead of failing.
void run_parts(std::size_t parts, const std::function<void(std::size_t)>& part);

}  // namespace course
