#pragma once
// Pausing another run's GPU work while its CPU work goes on (`grader batch`).
// A timed test must have the GPU to itself, but the runs sharing it spend
// most of their time on the CPU (a float64 reference, comparing results,
// starting up): on an H200, lesson07's timed runs waited seconds for sharers
// whose GPU sat nearly idle. The driver can pause a process's GPU work from
// outside it (its checkpoint interface, driver 570 and newer): once
// cuCheckpointProcessLock returns, every piece of work the process had
// submitted has finished and each further CUDA call it makes blocks until
// it is unlocked, while its threads keep running on the CPU. Measured on an
// H200 (driver 580): a lock takes about 1 ms, five at once 6 ms, an unlock
// 0.3 ms; a locked process ran no kernel and its CPU thread ran at full
// speed; it works inside bubblewrap (the grader's PID numbers), and the
// driver refuses it (CUDA_ERROR_NOT_SUPPORTED) under compute-sanitizer and
// Nsight Compute, and to a program that has used CUPTI: a student's program
// from the moment the grader's recorder starts on its first timed test to
// its end, even once the record is stopped and CUPTI finalized (H200,
// driver 580). Those runs are waited for as before.
#include <chrono>
#include <optional>
#include <vector>

namespace grader {

class process_pauser {
public:
    virtual ~process_pauser() = default;
    // Pauses the GPU work of the process tree under `root` (the child the
    // grader started: bubblewrap, a tool, the program), each process for at
    // most `wait` (work of its still running). Returns the processes paused,
    // or nothing where the tree cannot be paused now: a process whose work
    // did not finish in time, one the driver refuses, a stopped one, or a
    // program not yet using CUDA (it could start to). Nothing stays paused
    // then.
    virtual std::optional<std::vector<int>> pause_tree(int root, std::chrono::milliseconds wait) const = 0;
    // Lets them go on. A process that has ended meanwhile is skipped.
    virtual void resume(const std::vector<int>& pids) const = 0;
};

// The driver's, or null where there is none (no driver, or one older than
// 570): timed runs then wait for the sharers to leave.
const process_pauser* driver_pauser();

}  // namespace grader
