// What a Slurm task that refuses to grade on its node leaves for the batch
// that submitted it (slurm/task_refusal.hpp). The end-to-end test on a real
// cluster (batch_slurm_end_to_end.py, step 5) shows the batch reading it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "course/temp_dir.hpp"
#include "slurm/task_refusal.hpp"

namespace grader {
namespace {

TEST(SlurmTaskRefusal, ATaskLeavesWhatItsNodeLacksTheWholeRefusalAndTheNodesName) {
    course::temp_dir out("slurm-refusal");
    ::setenv("SLURMD_NODENAME", "gpu-node-7", 1);
    record_task_refusal(out.path(), 3, "compute-sanitizer", "this machine or this grader lacks ...\n  fix: install it");
    ::unsetenv("SLURMD_NODENAME");
    EXPECT_EQ(task_refusal_file(out.path(), 3), out.path() / "slurm" / "refusals" / "task-3.json");

    const auto refusal = load_task_refusal(out.path(), 3);
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->node, "gpu-node-7");
    EXPECT_EQ(refusal->lacks, "compute-sanitizer");
    EXPECT_EQ(refusal->message, "this machine or this grader lacks ...\n  fix: install it");
    EXPECT_FALSE(load_task_refusal(out.path(), 2)) << "a task that refused nothing left a refusal";
}

TEST(SlurmTaskRefusal, ARefusalOfAnEarlierJobIsForgottenBeforeTheNextIsSubmitted) {
    course::temp_dir out("slurm-refusal");
    record_task_refusal(out.path(), 0, "bubblewrap (the sandbox)", "bubblewrap (bwrap) is not installed");
    ASSERT_TRUE(load_task_refusal(out.path(), 0));
    forget_task_refusals(out.path());
    EXPECT_FALSE(load_task_refusal(out.path(), 0));
    forget_task_refusals(out.path());  // nothing to forget: no error
}

TEST(SlurmTaskRefusal, AFileCutShortIsNoRefusal) {
    course::temp_dir out("slurm-refusal");
    std::filesystem::create_directories(task_refusal_file(out.path(), 1).parent_path());
    std::ofstream(task_refusal_file(out.path(), 1)) << "{\"node\": \"n1\", \"lac";
    EXPECT_FALSE(load_task_refusal(out.path(), 1));
}

}  // namespace
}  // namespace grader
