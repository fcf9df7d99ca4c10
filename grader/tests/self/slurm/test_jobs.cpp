// Reading Slurm's answers (slurm/jobs.hpp). Every sample below was captured
// from Slurm 22.05.8 (Debian 12's slurm-wlm) on a one-node cluster with
// slurmdbd, running a 7-task array: tasks 0, 1 and 6 complete, 2 sleeps past
// its one-minute limit, 3 exits with 3, 4 is cancelled with scancel, 5 is
// requeued with `scontrol requeue` (as a preemption or node failure would).
#include <gtest/gtest.h>

#include "slurm/jobs.hpp"

namespace grader {
namespace {

// squeue --noheader --jobs=1 --Format=<squeue_fields>, just after sbatch: the
// pending tasks as one range, with the throttle.
constexpr const char* squeue_just_submitted =
    "1_[2-6%4]|PENDING|Resources|0|0:00||0|\n"
    "1_1|RUNNING|None|0|0:00|vm|0|\n"
    "1_0|RUNNING|None|0|0:00|vm|0|\n";

// squeue --noheader --array --states=all --jobs=1 --Format=<squeue_fields>,
// once task 2 hit its time limit and task 5 waits to run again.
constexpr const char* squeue_after_the_kills =
    "1_4|CANCELLED|None|15|0:03|vm|0|\n"
    "1_6|COMPLETED|None|0|0:02|vm|0|\n"
    "1_1|COMPLETED|None|0|0:02|vm|0|\n"
    "1_0|COMPLETED|None|0|0:02|vm|0|\n"
    "1_3|FAILED|NonZeroExitCode|768|0:00|vm|0|\n"
    "1_5|PENDING|BeginTime|0|0:00||1|\n"
    "1_2|TIMEOUT|TimeLimit|15|1:21|vm|0|\n";

// sacct --jobs=1 --allocations --parsable2 --noheader --format=<sacct_fields>, at
// the same moment. sacct names who cancelled, and has no reason for the timeout.
constexpr const char* sacct_after_the_kills =
    "1_0|COMPLETED|0:0|00:00:02|vm|None\n"
    "1_1|COMPLETED|0:0|00:00:02|vm|None\n"
    "1_2|TIMEOUT|0:0|00:01:21|vm|None\n"
    "1_3|FAILED|3:0|00:00:00|vm|None\n"
    "1_4|CANCELLED by 0|0:0|00:00:03|vm|None\n"
    "1_6|COMPLETED|0:0|00:00:02|vm|None\n"
    "1_5|PENDING|0:0|00:00:00|None assigned|BeginTime\n";

// The same without --allocations: each task's steps too.
constexpr const char* sacct_with_steps =
    "1_2|TIMEOUT|0:0|00:01:21|vm|None\n"
    "1_2.batch|CANCELLED|0:15|00:01:21|vm|\n"
    "1_5|PENDING|0:0|00:00:00|None assigned|BeginTime\n";

// With --duplicates: the requeued task's first run, then its current record.
constexpr const char* sacct_duplicates =
    "1_4|CANCELLED by 0|0:0|00:00:03|vm|None\n"
    "1_5|REQUEUED|0:0|00:00:06|vm|None\n"
    "1_6|COMPLETED|0:0|00:00:02|vm|None\n"
    "1_5|PENDING|0:0|00:00:00|None assigned|BeginTime\n";

// sacct lags behind the controller: task 4 already ran, but sacct still has
// the tasks not yet started as one pending range.
constexpr const char* sacct_lagging =
    "1_0|COMPLETED|0:0|00:00:02|vm|None\n"
    "1_3|FAILED|3:0|00:00:00|vm|None\n"
    "1_[4-6%4]|PENDING|0:0|00:00:00|None assigned|None\n";

std::vector<int> indices(const std::vector<slurm_task>& tasks) {
    std::vector<int> result;
    for (const auto& t : tasks) result.push_back(t.index);
    return result;
}

TEST(SlurmJobs, SbatchParsableOutputIsTheJobId) {
    EXPECT_EQ(parse_sbatch_output("1\n"), "1");
    EXPECT_EQ(parse_sbatch_output("123456;gpu-cluster\n"), "123456");
    EXPECT_EQ(parse_sbatch_output("sbatch: warning: can't honor --ntasks-per-node\n4242\n"), "4242");
    EXPECT_THROW(parse_sbatch_output(""), slurm_error);
    EXPECT_THROW(parse_sbatch_output("sbatch: error: Batch job submission failed: Invalid account\n"), slurm_error);
}

TEST(SlurmJobs, ArrayIndicesReadRangesListsAndThrottles) {
    EXPECT_EQ(parse_array_indices("4"), (std::vector<int>{4}));
    EXPECT_EQ(parse_array_indices("[2-6%4]"), (std::vector<int>{2, 3, 4, 5, 6}));
    EXPECT_EQ(parse_array_indices("[1,3-5]"), (std::vector<int>{1, 3, 4, 5}));
    EXPECT_THROW(parse_array_indices("[5-2]"), slurm_error);
    EXPECT_THROW(parse_array_indices("x"), slurm_error);
}

TEST(SlurmJobs, SqueueExpandsAPendingRangeIntoTasks) {
    const auto tasks = parse_squeue(squeue_just_submitted);
    EXPECT_EQ(indices(tasks), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(tasks[0].state, "RUNNING");
    EXPECT_EQ(tasks[0].node, "vm");
    EXPECT_EQ(tasks[6].state, "PENDING");
    EXPECT_EQ(tasks[6].reason, "Resources");
    EXPECT_EQ(tasks[6].node, "");
}

TEST(SlurmJobs, SqueueReportsFinishedTasksWithReasonsExitCodesAndRestarts) {
    const auto tasks = parse_squeue(squeue_after_the_kills);
    ASSERT_EQ(indices(tasks), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(tasks[0].state, "COMPLETED");
    EXPECT_EQ(tasks[0].exit_code, "0:0");
    EXPECT_EQ(tasks[2].state, "TIMEOUT");
    EXPECT_EQ(tasks[2].reason, "TimeLimit");
    EXPECT_EQ(tasks[2].exit_code, "0:15") << "SIGTERM, from squeue's raw wait status 15";
    EXPECT_EQ(tasks[2].elapsed, "1:21");
    EXPECT_EQ(tasks[3].state, "FAILED");
    EXPECT_EQ(tasks[3].exit_code, "3:0") << "exit 3, from squeue's raw wait status 768";
    EXPECT_EQ(tasks[4].state, "CANCELLED");
    EXPECT_EQ(tasks[5].state, "PENDING");
    EXPECT_EQ(tasks[5].reason, "BeginTime") << "a requeued task waits before it runs again";
    EXPECT_EQ(tasks[5].restarts, 1);
    EXPECT_EQ(tasks[5].source, "squeue");
}

TEST(SlurmJobs, SacctReportsTheSameStatesInItsOwnWords) {
    const auto tasks = parse_sacct(sacct_after_the_kills);
    ASSERT_EQ(indices(tasks), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(tasks[2].state, "TIMEOUT");
    EXPECT_EQ(tasks[2].elapsed, "00:01:21");
    EXPECT_EQ(tasks[3].exit_code, "3:0");
    EXPECT_EQ(tasks[4].state, "CANCELLED") << "\"CANCELLED by 0\" names who cancelled";
    EXPECT_EQ(tasks[5].state, "PENDING");
    EXPECT_EQ(tasks[5].node, "") << "\"None assigned\" is no node";
    EXPECT_EQ(tasks[5].restarts, 0) << "sacct does not count restarts";
    EXPECT_EQ(tasks[5].source, "sacct");
}

TEST(SlurmJobs, SacctSkipsJobStepsAndKeepsARequeuedTasksLatestRecord) {
    const auto steps = parse_sacct(sacct_with_steps);
    ASSERT_EQ(indices(steps), (std::vector<int>{2, 5}));
    EXPECT_EQ(steps[0].state, "TIMEOUT") << "the job's state, not its batch step's CANCELLED";
    const auto duplicates = parse_sacct(sacct_duplicates);
    ASSERT_EQ(indices(duplicates), (std::vector<int>{4, 5, 6}));
    EXPECT_EQ(duplicates[1].state, "PENDING") << "the requeued run, not the REQUEUED one before it";
}

TEST(SlurmJobs, SacctExpandsAPendingRange) {
    const auto tasks = parse_sacct(sacct_lagging);
    EXPECT_EQ(indices(tasks), (std::vector<int>{0, 3, 4, 5, 6}));
    EXPECT_EQ(tasks[2].state, "PENDING");
}

TEST(SlurmJobs, LinesInAnyOtherShapeAreSkipped) {
    EXPECT_TRUE(parse_squeue("slurm_load_jobs error: Invalid job id specified\n").empty());
    EXPECT_TRUE(parse_sacct("sacct: error: Unknown type ArrayJobId: 1\n7|COMPLETED|0:0|00:00:02|vm|None\n").empty())
        << "a job that is not an array task";
    EXPECT_TRUE(parse_sacct("").empty());
}

TEST(SlurmJobs, EveryStateMeansWaitingDoneKilledOrFailed) {
    for (const char* state : {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "REQUEUED", "SUSPENDED"})
        EXPECT_EQ(verdict_of(state), task_verdict::waiting) << state;
    EXPECT_EQ(verdict_of("COMPLETED"), task_verdict::done);
    for (const char* state : {"TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "CANCELLED", "CANCELLED by 1000",
                              "BOOT_FAIL", "DEADLINE"})
        EXPECT_EQ(verdict_of(state), task_verdict::killed) << state;
    EXPECT_EQ(verdict_of("FAILED"), task_verdict::failed);
    EXPECT_EQ(verdict_of("SOMETHING_NEW"), task_verdict::killed) << "an unknown state is an end, never a wait";
}

TEST(SlurmJobs, AnEndIsDescribedInWordsWithSlurmsOwn) {
    const auto live = parse_squeue(squeue_after_the_kills);
    EXPECT_EQ(describe_end(live[2]), "killed at its time limit (TIMEOUT from squeue, reason TimeLimit)");
    EXPECT_EQ(describe_end(live[3]),
              "the grader's command failed on the node (see the task's log), exit code 3:0 "
              "(FAILED from squeue, reason NonZeroExitCode)");
    const auto recorded = parse_sacct(sacct_after_the_kills);
    EXPECT_EQ(describe_end(recorded[2]), "killed at its time limit (TIMEOUT from sacct)");
    EXPECT_EQ(describe_end(recorded[4]), "cancelled (scancel, by a person or an administrator) (CANCELLED from sacct)");
    slurm_task odd;
    odd.state = "SOMETHING_NEW";
    EXPECT_EQ(describe_end(odd), "ended in state SOMETHING_NEW, which the grader does not know (SOMETHING_NEW)");
}

// sinfo --noheader --format=%G: which GPUs a partition's nodes have, where
// the cluster's gres.conf names a type (the grader checks the build against
// them before submitting).
TEST(SlurmJobs, SinfoNamesTheGpuTypesOfThePartition) {
    EXPECT_EQ(parse_sinfo_gpu_types("gpu:a100:4(S:0-1)\ngpu:l4:2,shard:8\n(null)\n"),
              (std::vector<std::string>{"a100", "l4"}));
    EXPECT_EQ(parse_sinfo_gpu_types("gpu:A100:4(S:0,1),gpu:T4:1\ngpu:a100:8\n"),
              (std::vector<std::string>{"a100", "t4"}))
        << "socket lists hold commas; types are matched lowercase, each once";
    EXPECT_EQ(parse_sinfo_gpu_types("gpu:4\n"), (std::vector<std::string>{""})) << "a GPU with no type";
    EXPECT_TRUE(parse_sinfo_gpu_types("(null)\n").empty());
    EXPECT_TRUE(parse_sinfo_gpu_types("mps:100\n").empty());
}

TEST(SlurmJobs, AGpuTypeNamesItsModelsArchitecture) {
    EXPECT_EQ(compute_capability_of_gpu_type("a100"), 80);
    EXPECT_EQ(compute_capability_of_gpu_type("nvidia_a100-sxm4-80gb"), 80);
    EXPECT_EQ(compute_capability_of_gpu_type("a100_80g"), 80);
    EXPECT_EQ(compute_capability_of_gpu_type("l4"), 89);
    EXPECT_EQ(compute_capability_of_gpu_type("tesla_t4"), 75);
    EXPECT_EQ(compute_capability_of_gpu_type("h100_nvl"), 90);
    EXPECT_EQ(compute_capability_of_gpu_type("H200"), 90);
    EXPECT_EQ(compute_capability_of_gpu_type("l40s"), 89);
    EXPECT_EQ(compute_capability_of_gpu_type("a10"), 86) << "a word of its own: a10 is not a100";
    EXPECT_FALSE(compute_capability_of_gpu_type("bigiron"));
    EXPECT_FALSE(compute_capability_of_gpu_type("1g.10gb")) << "a MIG slice names no model";
    EXPECT_FALSE(compute_capability_of_gpu_type(""));
}

}  // namespace
}  // namespace grader
