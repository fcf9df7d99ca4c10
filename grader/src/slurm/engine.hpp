#pragma once
// `grader batch LESSON SUBMISSIONS --engine slurm`: the same grading as the
// embedded engine, run by Slurm as one job array on a cluster's GPU nodes.
//
//   1. On the login node: read the class and the results folder as the
//      embedded engine does; only what is not graded yet goes to Slurm, so
//      rerunning the command resubmits only what is missing.
//   2. Write OUT/slurm/students.json (who the job grades) and
//      OUT/slurm/grade.sbatch: one array task per chunk of --chunk-size
//      submissions, each running `grader batch ... --only-students
//      students.json --chunk I/N` (the embedded engine, sandboxed, in the
//      node's local scratch), writing each result into OUT/students/.
//   3. sbatch it; record the job in OUT/logs/slurm-job.json.
//   4. Follow it (slurm/follow.hpp): tasks Slurm killed are run once more.
//   5. Every submission still without a result is written as not graded,
//      saying why ("infrastructure: killed at its time limit (TIMEOUT ...)"),
//      never as a zero; then the gradebook and class report, as the embedded
//      engine writes them.
// --no-wait stops after 3; Ctrl-C during 4 leaves the job running. Either
// way `grader batch collect OUT` does 4 and 5 later.
#include <filesystem>

#include "batch/options.hpp"
#include "checkout/context.hpp"

namespace grader {

int run_slurm_batch(const common_args& common, const batch_args& args);

// `grader batch collect OUT`: steps 4 and 5 for the job recorded in OUT.
int collect_slurm_batch(const common_args& common, const std::filesystem::path& out);

}  // namespace grader
