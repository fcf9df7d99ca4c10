#pragma once
// Following a job of `grader batch --engine slurm` until every chunk of
// submissions has had its last run: squeue/sacct are asked every few
// seconds, the results folder is counted for new results, and a progress
// line shows both. A task that Slurm killed (time limit, memory, a node
// failure, scancel) with submissions still ungraded is submitted once more,
// alone (--array=3,7), as a second job recorded beside the first; Slurm's own
// --requeue covers only node failures and preemption (slurm/jobs.hpp).
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "batch/result_cache.hpp"
#include "slurm/job_record.hpp"
#include "slurm/jobs.hpp"

namespace grader {

// How the last run of one array task (one chunk) ended.
struct chunk_end {
    int index = 0;
    std::string job_id;  // the job of its last run
    slurm_task task;     // Slurm's last word on it; state empty when Slurm no longer remembers it
    int runs = 1;        // 2 when it was run again
};

struct follow_outcome {
    bool stopped = false;         // `stop` was set: the job may still run
    std::vector<chunk_end> ends;  // when not stopped: one per chunk, by index
};

// True when the student's result was written after the job was submitted.
bool has_new_result(const slurm_job_record& record, const result_cache& cache, const std::string& student);

// Follows until every chunk's last run has ended, running killed chunks
// again once (saving the record with the new job); returns early, stopped,
// once `stop` is set.
follow_outcome follow_slurm_job(slurm_job_record& record, slurm_commands& slurm, const result_cache& cache,
                                const std::atomic<bool>& stop,
                                std::chrono::milliseconds poll_every = std::chrono::seconds(5));

}  // namespace grader
