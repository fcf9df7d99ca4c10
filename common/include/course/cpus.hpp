#pragma once
// How many CPUs this process may run on: its affinity (a Slurm task's, a
// container's, taskset's), which can be fewer than the machine has. Work
// spread over threads (random inputs, large comparisons, the batch's
// graders) is sized by it.
namespace course {

int usable_cpus();

}  // namespace course
