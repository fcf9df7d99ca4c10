// `grader reset` in a throwaway git repository: the student's version is
// saved before the skeleton comes back, and nothing is ever lost.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "checkout/context.hpp"
#include "checkout/reset.hpp"
#include "course/temp_dir.hpp"

namespace {
namespace fs = std::filesystem;

const std::string skeleton_text = "// TODO(lesson01): write the kernel\n";
const std::string student_text = "// my kernel, half done\n";
const std::string stamp = "20250101-120000";

std::string read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

int files_in(const fs::path& dir) {
    int n = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++n;
    return n;
}

// A course checkout in miniature: exercises/01_vecadd/vecadd.cu, committed.
struct Reset : ::testing::Test {
    course::temp_dir repo{"grader-reset-test"};
    fs::path exercise = repo / "exercises" / "01_vecadd";
    fs::path file = exercise / "vecadd.cu";

    static int git(const fs::path& dir, const std::string& args) {
        const std::string command = "git -C '" + dir.string() + "' -c user.name=test -c user.email=test@example.com " +
                                    "-c commit.gpgsign=false " + args + " >/dev/null 2>&1";
        return std::system(command.c_str());
    }

    void SetUp() override {
        if (!grader::find_git()) GTEST_SKIP() << "git is not installed; reset needs it";
        fs::create_directories(exercise);
        write(file, skeleton_text);
        ASSERT_EQ(git(repo.path(), "init -q"), 0);
        ASSERT_EQ(git(repo.path(), "add ."), 0);
        ASSERT_EQ(git(repo.path(), "commit -qm skeleton"), 0);
    }
};
}  // namespace

TEST_F(Reset, SavesTheStudentsVersionThenRestoresTheSkeleton) {
    write(file, student_text);
    const grader::skeleton s = grader::find_skeleton(exercise, {"vecadd.cu"});
    EXPECT_EQ(s.why, "HEAD");
    ASSERT_EQ(s.files.size(), 1u);
    EXPECT_EQ(s.files[0].git_path, "exercises/01_vecadd/vecadd.cu");
    EXPECT_TRUE(s.modified());

    const auto actions = grader::restore_skeleton(s, stamp);
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_TRUE(actions[0].restored);
    ASSERT_TRUE(actions[0].backup);
    EXPECT_EQ(*actions[0].backup, exercise / "vecadd.cu.20250101-120000.bak");
    EXPECT_EQ(read(*actions[0].backup), student_text);
    EXPECT_EQ(read(file), skeleton_text);
}

TEST_F(Reset, ASecondResetChangesNothing) {
    write(file, student_text);
    grader::restore_skeleton(grader::find_skeleton(exercise, {"vecadd.cu"}), stamp);
    const int files_before = files_in(exercise);

    const grader::skeleton again = grader::find_skeleton(exercise, {"vecadd.cu"});
    EXPECT_FALSE(again.modified());
    const auto actions = grader::restore_skeleton(again, "20250101-130000");
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_FALSE(actions[0].restored);
    EXPECT_FALSE(actions[0].backup);
    EXPECT_EQ(files_in(exercise), files_before) << "a reset with nothing to do wrote a file";
}

TEST_F(Reset, ATakenBackupNameGetsASuffix) {
    const fs::path older = exercise / "vecadd.cu.20250101-120000.bak";
    write(older, "an older backup");
    write(file, student_text);
    const auto actions = grader::restore_skeleton(grader::find_skeleton(exercise, {"vecadd.cu"}), stamp);
    ASSERT_TRUE(actions[0].backup);
    EXPECT_EQ(*actions[0].backup, exercise / "vecadd.cu.20250101-120000-1.bak");
    EXPECT_EQ(read(*actions[0].backup), student_text);
    EXPECT_EQ(read(older), "an older backup") << "an existing backup was overwritten";
    EXPECT_EQ(grader::backup_path(file, stamp), exercise / "vecadd.cu.20250101-120000-2.bak");
}

TEST_F(Reset, AMissingFileIsRestoredWithNothingToSave) {
    fs::remove(file);
    const grader::skeleton s = grader::find_skeleton(exercise, {"vecadd.cu"});
    EXPECT_FALSE(s.files[0].exists);
    const auto actions = grader::restore_skeleton(s, stamp);
    EXPECT_TRUE(actions[0].restored);
    EXPECT_FALSE(actions[0].backup);
    EXPECT_EQ(read(file), skeleton_text);
}

TEST_F(Reset, ADeletedFolderIsRestored) {
    fs::remove_all(exercise);
    const auto actions = grader::restore_skeleton(grader::find_skeleton(exercise, {"vecadd.cu"}), stamp);
    EXPECT_TRUE(actions[0].restored);
    EXPECT_EQ(read(file), skeleton_text);
}

TEST_F(Reset, KeepsTheFilesPermissions) {
    write(file, student_text);
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    grader::restore_skeleton(grader::find_skeleton(exercise, {"vecadd.cu"}), stamp);
    EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST_F(Reset, SavesAnEditMadeAfterThePlan) {
    write(file, student_text);
    const grader::skeleton s = grader::find_skeleton(exercise, {"vecadd.cu"});
    write(file, "saved again while the question was on screen\n");
    const auto actions = grader::restore_skeleton(s, stamp);
    EXPECT_EQ(read(*actions[0].backup), "saved again while the question was on screen\n");
}

TEST_F(Reset, CommittedWorkOnABranchWithAnUpstreamStillGetsTheCoursesSkeleton) {
    // The student cloned the course and committed their work: HEAD holds
    // their version; the skeleton is where their branch left the course's.
    course::temp_dir clone_parent{"grader-reset-clone"};
    const fs::path clone = clone_parent / "course";
    ASSERT_EQ(git(clone_parent.path(), "clone -q '" + repo.path().string() + "' course"), 0);
    const fs::path their_file = clone / "exercises" / "01_vecadd" / "vecadd.cu";
    write(their_file, student_text);
    ASSERT_EQ(git(clone, "commit -qam 'my work'"), 0);

    const grader::skeleton s = grader::find_skeleton(clone / "exercises" / "01_vecadd", {"vecadd.cu"});
    EXPECT_NE(s.why.find("origin/"), std::string::npos) << s.why;
    const auto actions = grader::restore_skeleton(s, stamp);
    EXPECT_EQ(read(their_file), skeleton_text);
    EXPECT_EQ(read(*actions[0].backup), student_text);
}

TEST_F(Reset, AFileGitDoesNotKnowIsAClearErrorAndNothingIsTouched) {
    write(file, student_text);
    write(exercise / "extra.cu", "// the student's own file\n");
    try {
        grader::find_skeleton(exercise, {"vecadd.cu", "extra.cu"});
        FAIL() << "expected an error";
    } catch (const grader::user_error& e) {
        EXPECT_NE(std::string(e.what()).find("exercises/01_vecadd/extra.cu is not in git"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("untouched"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read(file), student_text);
    EXPECT_EQ(files_in(exercise), 2);
}

TEST(ResetWithoutGit, NoGitIsAClearErrorAndNothingIsTouched) {
    course::temp_dir dir{"grader-reset-nogit"};
    write(dir / "vecadd.cu", student_text);
    try {
        grader::find_skeleton(dir.path(), {"vecadd.cu"}, std::nullopt);
        FAIL() << "expected an error";
    } catch (const grader::user_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("git is not installed"), std::string::npos) << what;
        EXPECT_NE(what.find("Your files are untouched"), std::string::npos) << what;
        EXPECT_EQ(e.code, grader::build_error);
    }
    EXPECT_EQ(read(dir / "vecadd.cu"), student_text);
    EXPECT_EQ(files_in(dir.path()), 1);
}

TEST(ResetWithoutGit, FindsNoGitOnAnEmptyPath) {
    const char* old = std::getenv("PATH");
    const std::string saved = old ? old : "";
    setenv("PATH", "/nonexistent", 1);
    EXPECT_EQ(grader::find_git(), std::nullopt);
    setenv("PATH", saved.c_str(), 1);
}

TEST(ResetWithoutGit, AFolderOutsideAnyCheckoutIsAClearError) {
    const auto git = grader::find_git();
    if (!git) GTEST_SKIP() << "git is not installed";
    course::temp_dir dir{"grader-reset-nocheckout"};
    write(dir / "vecadd.cu", student_text);
    try {
        grader::find_skeleton(dir.path(), {"vecadd.cu"}, git);
        FAIL() << "expected an error";
    } catch (const grader::user_error& e) {
        EXPECT_NE(std::string(e.what()).find("reset needs the course's git checkout"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read(dir / "vecadd.cu"), student_text);
    EXPECT_EQ(files_in(dir.path()), 1);
}
