#pragma once
// A task of a Slurm job that refuses to grade on its node (no sandbox there,
// a tool the lesson's tests need, a GPU the build has no code for:
// batch/engine.hpp's grading_refused) fails before grading anyone, as the
// embedded engine refuses on one machine. It leaves why in the batch folder,
// OUT/slurm/refusals/task-I.json, so that the batch that submitted the job
// says once what the node lacks and the fix, and each of the chunk's
// students is "not graded" naming it, rather than quoting a failed task's
// last log line.
#include <filesystem>
#include <optional>
#include <string>

namespace grader {

struct task_refusal {
    std::string node;     // where it refused (SLURMD_NODENAME, else the host name)
    std::string lacks;    // "compute-sanitizer, ncu (Nsight Compute)"
    std::string message;  // the refusal, each fix included
};

std::filesystem::path task_refusal_file(const std::filesystem::path& out, int chunk);

// Written by the task of chunk `chunk`; its node is this machine's name.
void record_task_refusal(const std::filesystem::path& out, int chunk, std::string lacks, std::string message);

// nullopt where the task left none (or an unreadable one).
std::optional<task_refusal> load_task_refusal(const std::filesystem::path& out, int chunk);

// Before a job is submitted: a refusal left by an earlier job is not this one's.
void forget_task_refusals(const std::filesystem::path& out);

}  // namespace grader
