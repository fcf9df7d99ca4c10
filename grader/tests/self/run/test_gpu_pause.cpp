// The driver's pause of another process's GPU work (gpu_pause.hpp), on a
// real GPU: what `grader batch` relies on when a timed test pauses the
// submissions sharing its GPU. Skips where there is no GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "course/device_info.hpp"
#include "run/gpu_helpers.hpp"
#include "run/gpu_pause.hpp"
#include "system/process.hpp"

extern char** environ;

namespace grader {
namespace {

using namespace std::chrono_literals;

// gpu_busy_program in a process of its own, its counts read as it prints them.
class busy_program {
public:
    explicit busy_program(std::vector<std::string> argv) {
        int out[2];
        if (pipe(out) != 0) throw std::runtime_error("pipe");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        const int spawned = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(out[1]);
        if (spawned != 0) throw std::runtime_error("cannot start " + argv[0]);
        reader_ = std::thread([this, fd = out[0]] {
            FILE* in = fdopen(fd, "r");
            long gpu = 0, cpu = 0;
            while (std::fscanf(in, "gpu %ld cpu %ld\n", &gpu, &cpu) == 2) {
                kernels_ = gpu;
                rounds_ = cpu;
            }
            std::fclose(in);
        });
    }
    ~busy_program() {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        reader_.join();
    }
    int pid() const { return pid_; }
    long kernels() const { return kernels_; }
    long rounds() const { return rounds_; }
    bool wait_for_kernels(long count) const {
        for (auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;) {
            if (kernels_ >= count) return true;
            std::this_thread::sleep_for(5ms);
        }
        return false;
    }

private:
    pid_t pid_ = -1;
    std::atomic<long> kernels_{0}, rounds_{0};
    std::thread reader_;
};

TEST(GpuPause, APausedProgramRunsNoKernelButKeepsItsCpuWorkGoing) {
    if (!course::has_device()) GTEST_SKIP() << "no GPU here";
    const process_pauser* pauser = driver_pauser();
    ASSERT_NE(pauser, nullptr) << "this GPU's driver has no checkpoint interface (driver 570 or newer has)";
    busy_program program({GPU_BUSY_PROGRAM});
    ASSERT_TRUE(program.wait_for_kernels(20)) << "the program ran no kernels";
    const auto paused = pauser->pause_tree(program.pid(), 1000ms);
    ASSERT_TRUE(paused.has_value()) << "the driver did not pause a program running 1 ms kernels";
    EXPECT_EQ(*paused, std::vector<int>{program.pid()});
    std::this_thread::sleep_for(30ms);  // the last count printed before the pause comes through
    const long kernels = program.kernels(), rounds = program.rounds();
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(program.kernels(), kernels) << "kernels ran while the program was paused";
    EXPECT_GT(program.rounds(), rounds + 10) << "the program's CPU work stopped while its GPU work was paused";
    pauser->resume(*paused);
    EXPECT_TRUE(program.wait_for_kernels(kernels + 20)) << "the program did not go on once resumed";
}

TEST(GpuPause, AKernelStillRunningOrAProgramNotYetUsingCudaIsNotPaused) {
    if (!course::has_device()) GTEST_SKIP() << "no GPU here";
    const process_pauser* pauser = driver_pauser();
    ASSERT_NE(pauser, nullptr) << "this GPU's driver has no checkpoint interface (driver 570 or newer has)";
    {
        busy_program program({GPU_BUSY_PROGRAM, "3000"});  // its first kernel runs 3 s
        std::this_thread::sleep_for(1000ms);
        const auto start = std::chrono::steady_clock::now();
        EXPECT_FALSE(pauser->pause_tree(program.pid(), 50ms).has_value()) << "paused while its kernel still ran";
        EXPECT_LT(std::chrono::steady_clock::now() - start, 1000ms) << "the pause waited past its 50 ms";
        EXPECT_TRUE(program.wait_for_kernels(5)) << "a pause that failed left the program stuck";
    }
    {
        busy_program not_cuda({"/bin/sleep", "5"});
        std::this_thread::sleep_for(100ms);
        EXPECT_FALSE(pauser->pause_tree(not_cuda.pid(), 50ms).has_value())
            << "a program that may still start to use CUDA counted as paused";
    }
}

// A student's program records its timed tests with the grader's recorder
// (CUPTI), beside the other runs' tests. The driver may refuse to pause such
// a program (on an H200 with driver 580 it refused, CUDA_ERROR_NOT_SUPPORTED,
// from the recorder's start to the program's end, even after the record was
// stopped and CUPTI finalized), and then the timed test must wait for it as
// for any sharer that cannot be paused. What may never happen: a recording
// program counted as paused while its kernels still run.
TEST(GpuPause, AProgramRecordingItsGpuWorkIsPausedForRealOrNotAtAll) {
#ifndef GPU_RECORDER
    GTEST_SKIP() << "the grader's recorder was not built (no CUPTI in this toolkit)";
#else
    if (!course::has_device()) GTEST_SKIP() << "no GPU here";
    const process_pauser* pauser = driver_pauser();
    ASSERT_NE(pauser, nullptr) << "this GPU's driver has no checkpoint interface (driver 570 or newer has)";
    busy_program program({GPU_BUSY_PROGRAM, "0", GPU_RECORDER});
    ASSERT_TRUE(program.wait_for_kernels(20)) << "the program ran no kernels (exit code 4: the recorder did not start)";
    const auto paused = pauser->pause_tree(program.pid(), 50ms);
    if (!paused) {
        std::printf("the driver refused to pause a program recording under CUPTI: it is waited for\n");
        EXPECT_TRUE(program.wait_for_kernels(program.kernels() + 20)) << "a pause that failed left the program stuck";
        return;
    }
    std::printf("the driver paused a program recording under CUPTI\n");
    std::this_thread::sleep_for(30ms);  // the last count printed before the pause comes through
    const long kernels = program.kernels();
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(program.kernels(), kernels) << "a recording program counted as paused ran kernels";
    pauser->resume(*paused);
    EXPECT_TRUE(program.wait_for_kernels(kernels + 20)) << "the program did not go on once resumed";
#endif
}

}  // namespace
}  // namespace grader

namespace grader {
namespace {

// The driver names every process of a tree that holds the GPU (NVML): what
// a timed test outside the sandbox is failed by, when its program's helper
// process holds the GPU too (gpu_helpers.hpp).
TEST(GpuHelperWatch, SeesEveryProcessOfATreeThatHoldsTheGpu) {
    if (!course::has_device()) GTEST_SKIP() << "no GPU here";
    char bus_id[64] = {};
    ASSERT_EQ(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0), cudaSuccess);
    // A shell (no GPU) with two children that each hold a context.
    const std::string program = GPU_BUSY_PROGRAM;
    child_process tree({{"/bin/sh", "-c", program + " & " + program + " & wait"}, {}, "/dev/null"});
    gpu_helper_watch watch(bus_id, tree.pid());
    std::this_thread::sleep_for(3s);  // the CUDA runtime takes up to a second to start
    const auto holders = watch.stop();
    tree.kill();
    tree.wait();
    ASSERT_EQ(holders.size(), 2u) << "NVML: " << gpu_context_holders(bus_id).size() << " holders now";
    for (const auto& [pid, name] : holders) EXPECT_NE(pid, tree.pid());
    EXPECT_NE(describe_gpu_helpers(holders).find("2 processes of your program held the GPU"), std::string::npos);
}

}  // namespace
}  // namespace grader
