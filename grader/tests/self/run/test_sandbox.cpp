// The sandbox for graded runs, with the real bubblewrap (skipped, saying so,
// where it is not installed; CI installs it).
#include <gtest/gtest.h>

#include <fstream>

#include "course/temp_dir.hpp"
#include "run/runner.hpp"
#include "run/sandbox.hpp"
#include "system/process.hpp"

namespace {

namespace fs = std::filesystem;

struct sandbox_test : ::testing::Test {
    void SetUp() override {
        bwrap = grader::find_bubblewrap();
        if (!bwrap) GTEST_SKIP() << "bubblewrap is not installed or may not create namespaces here";
        fs::create_directories(dir.path() / "secret");
        std::ofstream(dir.path() / "secret" / "answer.txt") << "42\n";
    }
    // Runs a shell command in the sandbox; its output is in `output`.
    grader::exit_status run(const std::string& script, const grader::sandbox_spec& spec) {
        return grader::run_command(grader::sandboxed_command(*bwrap, spec, {"/bin/sh", "-c", script}), output);
    }
    std::string output_text() const { return grader::file_text(output); }

    course::temp_dir dir{"grader-sandbox-test"};
    fs::path output = dir.path() / "output.txt";
    std::optional<fs::path> bwrap;
};

}  // namespace

TEST_F(sandbox_test, HiddenFoldersAreEmpty) {
    const auto secret = dir.path() / "secret" / "answer.txt";
    ASSERT_TRUE(fs::exists(secret));
    const auto status = run("cat " + secret.string(), {{dir.path() / "secret"}, {}, {}});
    EXPECT_NE(status.code, 0) << output_text();
    EXPECT_EQ(output_text().find("42"), std::string::npos) << output_text();
}

TEST_F(sandbox_test, ShownFilesAndWritableFoldersComeBack) {
    const auto shown = dir.path() / "secret" / "answer.txt";
    const auto writable = dir.path() / "evidence";
    fs::create_directories(writable);
    // The whole temp folder is hidden; one file is shown again, and one folder is writable.
    const auto status = run("cat " + shown.string() + " && echo seen > " + (writable / "note").string(),
                            {{dir.path()}, {shown}, {writable}});
    EXPECT_EQ(status.code, 0) << output_text();
    EXPECT_NE(output_text().find("42"), std::string::npos) << output_text();
    EXPECT_TRUE(fs::exists(writable / "note"));
}

TEST_F(sandbox_test, TheRestIsReadOnlyAndThereIsNoNetwork) {
    const auto outside = dir.path() / "outside.txt";
    const auto status = run("echo x > " + outside.string(), {{}, {}, {}});
    EXPECT_NE(status.code, 0);
    EXPECT_FALSE(fs::exists(outside));
    // Only the loopback device exists in a fresh network namespace.
    run("cat /proc/net/dev", {{}, {}, {}});
    EXPECT_EQ(output_text().find("eth"), std::string::npos) << output_text();
    EXPECT_NE(output_text().find("lo:"), std::string::npos) << output_text();
}

TEST_F(sandbox_test, GradedTestsRunInsideIt) {
    grader::run_options options;
    options.tests_program = FAKE_GRADED_TESTS;
    options.judge_program = FAKE_GRADED_JUDGE;
    options.log_dir = dir.path() / "logs";
    options.only = {"FakeHost.Passes", "FakeHost.Last"};
    options.bwrap = bwrap;
    // The program's own folder is hidden too: the runner shows the program again.
    options.sandbox.hidden = {fs::path(FAKE_GRADED_TESTS).parent_path()};
    const auto run = grader::run_graded_tests(options);
    for (const auto& t : run.tests) EXPECT_EQ(t.status, grader::test_status::passed) << t.id;
}

TEST_F(sandbox_test, ACrashInsideIsNamedByItsSignal) {
    setenv("FAKE_CRASH", "1", 1);
    grader::run_options options;
    options.tests_program = FAKE_GRADED_TESTS;
    options.judge_program = FAKE_GRADED_JUDGE;
    options.log_dir = dir.path() / "logs";
    options.only = {"FakeHost.Crashes"};
    options.bwrap = bwrap;
    const auto run = grader::run_graded_tests(options);
    unsetenv("FAKE_CRASH");
    ASSERT_EQ(run.tests.size(), 1u);
    EXPECT_EQ(run.tests[0].status, grader::test_status::crashed);
    ASSERT_FALSE(run.tests[0].messages.empty());
    EXPECT_NE(run.tests[0].messages[0].find("SIGSEGV"), std::string::npos) << run.tests[0].messages[0];
}

TEST_F(sandbox_test, ACourseUnderTmpIsKeptAndItsSecretsStayHidden) {
    // The test's folder is under the temp folder, which the sandbox makes private.
    const auto course = dir.path() / "course";
    fs::create_directories(course / "solutions");
    std::ofstream(course / "lesson.hpp") << "header\n";
    std::ofstream(course / "solutions" / "answer.cu") << "42\n";
    grader::sandbox_spec spec{{course / "solutions"}, {}, {}, {course}};
    EXPECT_EQ(run("cat " + (course / "lesson.hpp").string(), spec).code, 0) << output_text();
    EXPECT_NE(run("cat " + (course / "solutions" / "answer.cu").string(), spec).code, 0) << output_text();
}
