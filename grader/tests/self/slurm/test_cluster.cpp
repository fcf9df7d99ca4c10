// The Slurm building blocks against a real Slurm: a one-node cluster on this
// machine (grader/tests/self/slurm/local_cluster.sh) runs a job array written by
// slurm_batch_script, submitted and followed through slurm_commands, and the
// states they report are checked against what each task was made to do.
//
// Skipped (exit code 77, CTest's SKIP_RETURN_CODE) where the cluster cannot
// run: the Debian packages slurmctld, slurmd, slurm-client and munge are
// missing, or this is not root. It takes about 90 s: Slurm counts time
// limits in minutes and checks them every 30 s, so the task that overruns
// its one-minute limit is killed 60 to 90 s after it starts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "course/temp_dir.hpp"
#include "slurm/jobs.hpp"
#include "slurm/script.hpp"
#include "system/process.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr int skip_exit_code = 77;  // local_cluster.sh's "cannot run here" too

const fs::path& cluster_dir() {
    static course::temp_dir dir("grader-slurm");
    return dir.path();
}

// local_cluster.sh ACTION; its output is printed when it fails.
exit_status local_cluster(const std::string& action) {
    const fs::path log = cluster_dir() / ("local_cluster_" + action + ".log");
    const auto status = run_command({"/bin/bash", LOCAL_CLUSTER_SH, action, cluster_dir().string()}, log);
    std::cout << file_text(log);
    return status;
}

std::vector<slurm_task> states_when_all_ended(slurm_commands& slurm, const std::string& job_id,
                                              std::size_t tasks, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        auto states = slurm.array_task_states(job_id);
        const bool all_ended = states.size() == tasks && std::none_of(states.begin(), states.end(), [](const auto& t) {
                                   return verdict_of(t.state) == task_verdict::waiting;
                               });
        if (all_ended || std::chrono::steady_clock::now() > deadline) return states;
        std::this_thread::sleep_for(2s);
    }
}

// What a task does, by its index; the arguments after the index are written
// to its output file, to show that they arrive as they were given.
constexpr const char* task_behaviour = R"(
index=$1; shift
case $index in
  2) sleep 300 ;;                                    # past its time limit: TIMEOUT
  3) exit 3 ;;                                       # the command fails: FAILED
  4) if [[ ${SLURM_RESTART_COUNT:-0} == 0 ]]; then   # requeued by the test while it
       sleep 300                                     # runs, then completes the second time
     fi ;;
esac
printf '%s\n' "$MESSAGE" "$@" "restarts ${SLURM_RESTART_COUNT:-0}" > "$OUT/$index"
)";

slurm_job_spec job_array(const fs::path& work, int tasks) {
    slurm_job_spec spec;
    spec.job_name = "grader-slurm-test";
    spec.array_tasks = tasks;
    spec.time_limit_minutes = 1;
    spec.log_dir = work / "logs";
    spec.shared_paths = {work};
    spec.environment = {{"MESSAGE", "exported $VALUE"}, {"OUT", (work / "out").string()}};
    spec.task_command = {"/bin/bash", "-c", task_behaviour, "task", "{task}", "two words", "it's \"quoted\"", "$HOME",
                         "{scratch}"};
    spec.made_by = "test_slurm_cluster.cpp";
    return spec;
}

const slurm_task& task(const std::vector<slurm_task>& states, int index) {
    for (const auto& t : states)
        if (t.index == index) return t;
    throw std::runtime_error("no state for task " + std::to_string(index));
}

// Waits until `index` runs, then requeues it as a preemption would.
void requeue_when_running(slurm_commands& slurm, const std::string& job_id, int index) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto states = slurm.array_task_states(job_id);
        for (const auto& t : states)
            if (t.index == index && t.state == "RUNNING") {
                const auto scontrol = find_program("scontrol");
                ASSERT_TRUE(scontrol);
                const auto status = run_command({scontrol->string(), "requeue", job_id + "_" + std::to_string(index)},
                                                cluster_dir() / "requeue.log");
                ASSERT_EQ(status.code, 0) << file_text(cluster_dir() / "requeue.log");
                return;
            }
        std::this_thread::sleep_for(1s);
    }
    FAIL() << "task " << index << " never ran";
}

TEST(SlurmCluster, AJobArrayEndsTheWayEachTaskWasMadeTo) {
    course::temp_dir work("grader-slurm-job");
    fs::create_directories(work / "logs");
    fs::create_directories(work / "out");
    const fs::path script = work / "job.sh";
    {
        std::ofstream out(script);
        out << slurm_batch_script(job_array(work.path(), 5));
    }
    slurm_commands slurm(work / "slurm");
    const std::string job_id = slurm.submit(script);
    std::cout << "submitted job " << job_id << "\n";
    EXPECT_TRUE(slurm.queued(job_id));
    requeue_when_running(slurm, job_id, 4);

    const auto states = states_when_all_ended(slurm, job_id, 5, 150s);
    for (const auto& t : states)
        std::cout << job_id << "_" << t.index << " " << t.state << " (" << to_string(verdict_of(t.state))
                  << ") exit " << t.exit_code << " restarts " << t.restarts << " ran " << t.elapsed << " reason "
                  << t.reason << " from " << t.source << ": " << describe_end(t) << "\n";
    ASSERT_EQ(states.size(), 5u);
    EXPECT_FALSE(slurm.queued(job_id));

    for (int index : {0, 1}) {
        EXPECT_EQ(task(states, index).state, "COMPLETED");
        // sbatch passes the submitter's environment on, TMPDIR included.
        const char* tmpdir = std::getenv("TMPDIR");
        EXPECT_EQ(file_text(work / "out" / std::to_string(index)),
                  fmt::format("exported $VALUE\ntwo words\nit's \"quoted\"\n$HOME\n{}\nrestarts 0\n",
                              tmpdir && *tmpdir ? tmpdir : "/tmp"))
            << "every argument and the exported variable arrive as given, {scratch} as the node's TMPDIR";
    }
    const auto& overran = task(states, 2);
    EXPECT_EQ(overran.state, "TIMEOUT");
    EXPECT_EQ(verdict_of(overran.state), task_verdict::killed);
    EXPECT_EQ(overran.restarts, 0) << "--requeue does not cover a time limit: Slurm does not run it again";
    const auto& failed = task(states, 3);
    EXPECT_EQ(failed.state, "FAILED");
    EXPECT_EQ(failed.exit_code, "3:0");
    EXPECT_EQ(verdict_of(failed.state), task_verdict::failed);
    const auto& requeued = task(states, 4);
    EXPECT_EQ(requeued.state, "COMPLETED");
    EXPECT_EQ(requeued.restarts, 1) << "--requeue: a preempted task runs again by itself";
    EXPECT_NE(file_text(work / "out" / "4").find("restarts 1"), std::string::npos);

    EXPECT_FALSE(slurm.accounting_available()) << "this test cluster has no slurmdbd: squeue alone reports";
    EXPECT_NE(file_text(work / "logs" / (job_id + "_2.err")).find("DUE TO TIME LIMIT"), std::string::npos)
        << "the task's own log says why it ended";
}

TEST(SlurmCluster, CancelEndsEveryTaskOfTheJob) {
    course::temp_dir work("grader-slurm-cancel");
    slurm_job_spec spec;
    spec.array_tasks = 2;
    spec.task_command = {"/bin/sleep", "300"};
    spec.log_dir = work.path();
    const fs::path script = work / "job.sh";
    {
        std::ofstream out(script);
        out << slurm_batch_script(spec);
    }
    slurm_commands slurm(work / "slurm");
    const std::string job_id = slurm.submit(script);
    EXPECT_TRUE(slurm.queued(job_id));
    slurm.cancel(job_id);
    const auto states = states_when_all_ended(slurm, job_id, 2, 30s);
    ASSERT_EQ(states.size(), 2u);
    for (const auto& t : states) EXPECT_EQ(t.state, "CANCELLED") << t.index;
    EXPECT_FALSE(slurm.queued(job_id));
    EXPECT_NO_THROW(slurm.cancel(job_id)) << "cancelling an ended job is no error";
    EXPECT_THROW(slurm.submit(work / "no-such-script.sh"), slurm_error);
}

}  // namespace
}  // namespace grader

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    const auto started = grader::local_cluster("start");
    if (!started.signaled && started.code == grader::skip_exit_code) {
        std::cout << "SKIPPED: no local Slurm cluster here (see above)\n";
        return grader::skip_exit_code;
    }
    if (started.signaled || started.code != 0) {
        std::cout << "FAILED: the local Slurm cluster did not start\n";
        grader::local_cluster("stop");
        return 1;
    }
    setenv("SLURM_CONF", (grader::cluster_dir() / "slurm.conf").c_str(), 1);
    const int result = RUN_ALL_TESTS();
    grader::local_cluster("stop");
    return result;
}
