// The processes a child started, read from the real /proc: a shell that
// starts two sleeps, one of them through a second shell.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "course/temp_dir.hpp"
#include "system/process.hpp"
#include "system/process_tree.hpp"

namespace grader {

TEST(ProcessTree, FindsChildrenAndGrandchildren) {
    course::temp_dir dir("grader-process-tree");
    child_process::options opts;
    opts.argv = {"/bin/sh", "-c", "sleep 30 & sh -c 'sleep 30 & wait' & wait"};
    opts.output = dir / "out.log";
    child_process shell(opts);
    // Both sleeps and the inner shell: four processes in all, once started.
    std::vector<int> tree;
    for (int tries = 0; tries < 200 && tree.size() < 4; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        tree = process_and_descendants(shell.pid());
    }
    shell.kill();
    shell.wait();
    ASSERT_EQ(tree.size(), 4u);
    EXPECT_EQ(tree.front(), shell.pid());
    EXPECT_EQ(std::count(tree.begin(), tree.end(), shell.pid()), 1);
}

// A helper the program started and left behind (test_processes.hpp's
// stop_leftovers_after): found by the program it runs, also once its parent
// has ended and init has taken it out of the tree; other programs are not.
TEST(ProcessTree, FindsTheProcessesThatRunAProgramAlsoOnceOrphaned) {
    course::temp_dir dir("grader-process-tree");
    child_process::options opts;
    opts.argv = {"/bin/sh", "-c", "(sleep 30 &); sleep 31 & tail -f /dev/null & wait"};
    opts.output = dir / "out.log";
    child_process shell(opts);
    std::vector<int> sleeps;
    for (int tries = 0; tries < 200 && sleeps.size() < 2; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        sleeps = processes_running(shell.pid(), "/bin/sleep");
    }
    const auto tree = process_and_descendants(shell.pid());
    const auto tails = processes_running(shell.pid(), "/usr/bin/tail");
    shell.kill();  // the whole group, the orphan too
    shell.wait();
    ASSERT_EQ(sleeps.size(), 2u);
    const int orphans = static_cast<int>(std::count_if(sleeps.begin(), sleeps.end(), [&](int pid) {
        return std::find(tree.begin(), tree.end(), pid) == tree.end();
    }));
    EXPECT_EQ(orphans, 1) << "the sleep whose subshell ended is out of the tree, and still found";
    EXPECT_EQ(tails.size(), 1u);
    EXPECT_EQ(std::count(sleeps.begin(), sleeps.end(), shell.pid()), 0);
}

TEST(ProcessTree, AProcessThatIsGoneIsItselfAlone) {
    EXPECT_EQ(process_and_descendants(999'999'999), std::vector<int>{999'999'999});
    const auto gone = process_tree(999'999'999);
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_EQ(gone.front().state, 0) << "an ended process was read";
}

// What the GPU pause reads of each process (gpu_pause.hpp): its parent, and
// whether it is stopped, which the driver's query must never be asked about.
TEST(ProcessTree, SaysEachProcesssParentAndWhetherItIsStopped) {
    course::temp_dir dir("grader-process-tree");
    child_process::options opts;
    opts.argv = {"/bin/sleep", "30"};
    opts.output = dir / "out.log";
    child_process sleeper(opts);
    ASSERT_EQ(kill(sleeper.pid(), SIGSTOP), 0);
    char state = 0;
    int parent = -1;
    for (int tries = 0; tries < 200 && state != 'T'; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        const auto tree = process_tree(sleeper.pid());
        state = tree.front().state;
        parent = tree.front().parent;
    }
    sleeper.kill();
    sleeper.wait();
    EXPECT_EQ(state, 'T');
    EXPECT_EQ(parent, getpid());
}

}  // namespace grader
