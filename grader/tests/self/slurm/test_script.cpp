// The sbatch script of `grader batch --engine slurm` (slurm/script.hpp): its
// #SBATCH lines, the quoting of the task's command, the options it refuses,
// and the time limit taken from the lesson's test limits. That Slurm really
// runs such a script is shown by the slurm-labelled test (test_slurm_cluster.cpp).
#include <gtest/gtest.h>

#include "checkout/context.hpp"
#include "slurm/jobs.hpp"
#include "slurm/script.hpp"

namespace grader {
namespace {

slurm_job_spec typical_spec() {
    slurm_job_spec spec;
    spec.job_name = "grade-lesson04";
    spec.array_tasks = 8;
    spec.throttle = 4;
    spec.time_limit_minutes = 95;
    spec.gres = "gpu:1";
    spec.cpus_per_task = 4;
    spec.memory = "16G";
    spec.partition = "gpu";
    spec.account = "cs101";
    spec.qos = "normal";
    spec.extra_options = {"--constraint=h100"};
    spec.log_dir = "/shared/class/results/slurm";
    spec.shared_paths = {"/shared/course", "/shared/class/submissions"};
    spec.task_command = {"/shared/course/build/bin/grader", "batch", "lesson04", "/shared/class/submissions",
                         "--chunk", "{task}/8", "--scratch", "{scratch}", "--note", "${TMPDIR:-/tmp}"};
    spec.environment = {{"COURSE_BUILD_DIR", "/shared/course/build"}};
    spec.made_by = "grader batch lesson04 /shared/class/submissions --engine slurm";
    return spec;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SlurmScript, ShellQuoteLeavesPlainWordsAndQuotesTheRest) {
    EXPECT_EQ(shell_quote("lesson04"), "lesson04");
    EXPECT_EQ(shell_quote("/shared/course/build-1.2/bin"), "/shared/course/build-1.2/bin");
    EXPECT_EQ(shell_quote("--chunk=3/8"), "--chunk=3/8");
    EXPECT_EQ(shell_quote(""), "''") << "an empty argument stays an argument";
    EXPECT_EQ(shell_quote("two words"), "'two words'");
    EXPECT_EQ(shell_quote("$HOME"), "'$HOME'") << "no expansion on the node";
    EXPECT_EQ(shell_quote("a\"b"), "'a\"b'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote("`rm -rf /`; echo"), "'`rm -rf /`; echo'");
    EXPECT_EQ(shell_quote("line\nbreak"), "'line\nbreak'");
}

TEST(SlurmScript, StartsWithBashAndSaysWhatItIsWhoMadeItAndWhatMustBeShared) {
    const std::string script = slurm_batch_script(typical_spec());
    EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
    EXPECT_TRUE(contains(script, "8 task(s)")) << script;
    EXPECT_TRUE(contains(script, "# Made by: grader batch lesson04 /shared/class/submissions --engine slurm\n"));
    EXPECT_TRUE(contains(script, "sbatch THIS_FILE"));
    EXPECT_TRUE(contains(script, "#   /shared/course\n#   /shared/class/submissions\n")) << script;
}

TEST(SlurmScript, SbatchLinesComeBeforeTheFirstCommand) {
    const std::string script = slurm_batch_script(typical_spec());
    for (const char* line : {"#SBATCH --job-name=grade-lesson04\n", "#SBATCH --array=0-7%4\n", "#SBATCH --time=1:35:00\n",
                             "#SBATCH --cpus-per-task=4\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --mem=16G\n",
                             "#SBATCH --partition=gpu\n", "#SBATCH --account=cs101\n", "#SBATCH --qos=normal\n",
                             "#SBATCH --output=/shared/class/results/slurm/%A_%a.out\n",
                             "#SBATCH --error=/shared/class/results/slurm/%A_%a.err\n", "#SBATCH --requeue\n",
                             "#SBATCH --constraint=h100\n"}) {
        const auto at = script.find(line);
        ASSERT_NE(at, std::string::npos) << line << "\n" << script;
        // sbatch stops reading directives at the first command.
        EXPECT_LT(at, script.find("set -euo pipefail")) << line;
    }
}

TEST(SlurmScript, LeavesOutWhatWasNotAskedFor) {
    slurm_job_spec spec;
    spec.array_tasks = 3;
    spec.requeue = false;
    spec.task_command = {"/bin/true"};
    const std::string script = slurm_batch_script(spec);
    EXPECT_TRUE(contains(script, "#SBATCH --array=0-2\n")) << "no throttle: no %";
    EXPECT_TRUE(contains(script, "#SBATCH --no-requeue\n"));
    for (const char* absent : {"--gres", "--mem", "--partition", "--account", "--qos", "--output", "Made by", "Every node must see",
                             "for shared in"})
        EXPECT_FALSE(contains(script, absent)) << absent << "\n" << script;
}

// A rerun of the tasks Slurm killed names just those, keeping their indices
// (each index is a chunk of submissions), and the throttle still applies.
TEST(SlurmScript, AnExplicitIndexListRunsJustThoseTasks) {
    slurm_job_spec spec = typical_spec();
    spec.array_indices = {3, 7};
    const std::string script = slurm_batch_script(spec);
    EXPECT_TRUE(contains(script, "#SBATCH --array=3,7%4\n")) << script;
    EXPECT_TRUE(contains(script, "2 task(s)")) << script;
    spec.array_indices = {-1};
    EXPECT_THROW(slurm_batch_script(spec), user_error);
}

TEST(SlurmScript, TheCommandIsQuotedWithTheTaskIndexFromSlurm) {
    const std::string script = slurm_batch_script(typical_spec());
    EXPECT_TRUE(contains(script,
                         "\nexec /shared/course/build/bin/grader batch lesson04 /shared/class/submissions --chunk "
                         "\"$SLURM_ARRAY_TASK_ID\"/8 --scratch \"${TMPDIR:-/tmp}\" --note '${TMPDIR:-/tmp}'\n"))
        << script;
    EXPECT_TRUE(contains(script, "export COURSE_BUILD_DIR=/shared/course/build\n"));
    EXPECT_TRUE(contains(script, "\nset -euo pipefail\n"));
}

TEST(SlurmScript, NodeTokensWorkAnywhereInAnArgument) {
    slurm_job_spec spec;
    spec.task_command = {"/bin/echo", "{task}", "--chunk={task}/2", "it's {task}", "{task}{scratch}", "{scratch}/x y"};
    const std::string script = slurm_batch_script(spec);
    EXPECT_TRUE(contains(script,
                         "exec /bin/echo \"$SLURM_ARRAY_TASK_ID\" --chunk=\"$SLURM_ARRAY_TASK_ID\"/2 "
                         "'it'\\''s '\"$SLURM_ARRAY_TASK_ID\" \"$SLURM_ARRAY_TASK_ID\"\"${TMPDIR:-/tmp}\" "
                         "\"${TMPDIR:-/tmp}\"'/x y'\n"))
        << script;
}

TEST(SlurmScript, TheTimeLimitReadsAsADuration) {
    slurm_job_spec spec;
    spec.task_command = {"/bin/true"};
    for (const auto& [minutes, line] : std::vector<std::pair<int, std::string>>{
             {1, "--time=0:01:00"}, {95, "--time=1:35:00"}, {24 * 60 + 5, "--time=1-00:05:00"}}) {
        spec.time_limit_minutes = minutes;
        EXPECT_TRUE(contains(slurm_batch_script(spec), "#SBATCH " + line + "\n")) << minutes;
    }
}

TEST(SlurmScript, TheNodeChecksTheSharedPathsBeforeGrading) {
    const std::string script = slurm_batch_script(typical_spec());
    const auto check = script.find("for shared in /shared/course /shared/class/submissions; do");
    ASSERT_NE(check, std::string::npos) << script;
    EXPECT_LT(check, script.find("\nexec "));
    EXPECT_TRUE(contains(script, "it must be on storage every node shares"));
}

TEST(SlurmScript, RefusesOptionsSbatchWouldMisread) {
    auto refuses = [](auto change, const std::string& why) {
        slurm_job_spec spec = typical_spec();
        change(spec);
        try {
            slurm_batch_script(spec);
            ADD_FAILURE() << "accepted: " << why;
        } catch (const user_error& e) {
            EXPECT_EQ(e.code, usage_error);
            EXPECT_TRUE(contains(e.what(), why)) << e.what();
        }
    };
    refuses([](slurm_job_spec& s) { s.extra_options = {"-C h100"}; }, "must start with \"--\"");
    refuses([](slurm_job_spec& s) { s.extra_options = {"--comment=a\n#SBATCH --qos=high"}; }, "line break");
    refuses([](slurm_job_spec& s) { s.partition = "gpu large"; }, "--partition needs a value without spaces");
    refuses([](slurm_job_spec& s) { s.log_dir = "/shared/my results"; }, "--output needs a value without spaces");
    refuses([](slurm_job_spec& s) { s.environment = {{"BAD-NAME", "x"}}; }, "not an environment variable name");
    refuses([](slurm_job_spec& s) { s.array_tasks = 0; }, "at least one task");
    refuses([](slurm_job_spec& s) { s.task_command.clear(); }, "no command");
}

TEST(SlurmScript, TimeLimitIsTheWorstCaseRoundedUpToMinutes) {
    using std::chrono::seconds;
    // 5 tests of 60 s and a 300 s build per submission, 4 submissions, 600 s setup:
    // (5 * 60 + 300) * 4 + 600 = 3000 s = 50 minutes.
    EXPECT_EQ(slurm_time_limit_minutes({5, seconds(60), 4, seconds(300), seconds(600)}), 50);
    EXPECT_EQ(slurm_time_limit_minutes({1, seconds(1), 1, seconds(0), seconds(0)}), 1) << "rounded up";
    EXPECT_EQ(slurm_time_limit_minutes({0, seconds(60), 1, seconds(0), seconds(0)}), 1) << "never zero: no limit";
    EXPECT_EQ(slurm_time_limit_minutes({2, seconds(30), 1, seconds(0), seconds(1)}), 2) << "61 s -> 2 minutes";
}

// From measured times, the tests' own limits do not count: 4 submissions,
// each 120 s of grading and 300 s of build, plus 600 s of setup.
TEST(SlurmScript, ATimeLimitFromMeasuredTimesCountsTheirGradingNotTheTestsLimits) {
    using std::chrono::seconds;
    chunk_time_budget budget{40, seconds(60), 4, seconds(300), seconds(600)};
    EXPECT_EQ(slurm_time_limit_minutes(budget), 190) << "the worst case: 40 tests of 60 s";
    budget.grading_per_submission = seconds(120);
    EXPECT_EQ(slurm_time_limit_minutes(budget), 38);
}

}  // namespace
// --mem fits every program a task runs at once, each at its --memory limit.
TEST(SlurmScript, AsksForTheMemoryOfEveryProgramAtItsLimit) {
    grader::task_memory_budget memory;
    memory.per_program_bytes = 16LL << 30;
    memory.graders = 2;  // each: a test program and its judge
    EXPECT_EQ(grader::slurm_task_memory(memory), "68G");
    memory.per_program_bytes = (3LL << 30) + 1;  // rounded up to whole GiB
    memory.graders = 5;
    EXPECT_EQ(grader::slurm_task_memory(memory), "35G");
    slurm_job_spec spec = typical_spec();
    spec.memory = grader::slurm_task_memory(memory);
    EXPECT_NE(grader::slurm_batch_script(spec).find("#SBATCH --mem=35G\n"), std::string::npos);
}

// sinfo's memory column: the largest node, "+" where a group's nodes differ.
TEST(SlurmScript, ReadsTheLargestNodesMemoryFromSinfo) {
    EXPECT_EQ(grader::parse_sinfo_largest_memory_mib("24105\n"), 24105);
    EXPECT_EQ(grader::parse_sinfo_largest_memory_mib("515000+\n1031000\n  64000 \n"), 1031000);
    EXPECT_EQ(grader::parse_sinfo_largest_memory_mib("sinfo: error: Unable to contact slurm controller\n"), std::nullopt);
    EXPECT_EQ(grader::parse_sinfo_largest_memory_mib(""), std::nullopt);
}

}  // namespace grader
