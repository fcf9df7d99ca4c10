// The change detector behind `grader watch`: content changes count, touches
// and identical rewrites do not, and nothing is reported until the files
// have settled.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/file_watch.hpp"
#include "course/temp_dir.hpp"

namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using clock_type = grader::change_detector::clock;

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

// Moves the file's time on, as a save a second later would.
void touch(const fs::path& file) { fs::last_write_time(file, fs::last_write_time(file) + 2s); }

struct FileWatch : ::testing::Test {
    course::temp_dir dir{"grader-watch-test"};
    fs::path kernel = dir / "kernel.cu";
    fs::path helper = dir / "helper.cu";
    clock_type::time_point t0 = clock_type::now();

    void SetUp() override {
        write(kernel, "__global__ void k() {}\n");
        write(helper, "int helper();\n");
    }
};
}  // namespace

TEST_F(FileWatch, NothingChangedNothingReported) {
    grader::change_detector watch({kernel, helper}, 300ms);
    EXPECT_TRUE(watch.poll(t0).empty());
    EXPECT_TRUE(watch.poll(t0 + 1s).empty());
}

TEST_F(FileWatch, AnEditIsReportedOnceItSettles) {
    grader::change_detector watch({kernel, helper}, 300ms);
    write(kernel, "__global__ void k() { /* edited */ }\n");
    EXPECT_TRUE(watch.poll(t0).empty()) << "reported before the editor could finish writing";
    EXPECT_EQ(watch.poll(t0 + 400ms), std::vector<fs::path>{kernel});
    EXPECT_TRUE(watch.poll(t0 + 800ms).empty()) << "the same edit reported twice";
}

TEST_F(FileWatch, AFileStillBeingWrittenWaits) {
    grader::change_detector watch({kernel}, 300ms);
    write(kernel, "");  // the editor truncated it...
    EXPECT_TRUE(watch.poll(t0).empty());
    write(kernel, "__global__ void k() { int i; }\n");  // ...and wrote it 200 ms later
    EXPECT_TRUE(watch.poll(t0 + 200ms).empty());
    EXPECT_EQ(watch.poll(t0 + 600ms).size(), 1u);
}

TEST_F(FileWatch, TouchOrTheSameContentRewrittenIsNoChange) {
    grader::change_detector watch({kernel}, 300ms);
    touch(kernel);
    EXPECT_TRUE(watch.poll(t0).empty());
    EXPECT_TRUE(watch.poll(t0 + 1s).empty());
    write(kernel, "__global__ void k() {}\n");
    touch(kernel);
    EXPECT_TRUE(watch.poll(t0 + 2s).empty());
    EXPECT_TRUE(watch.poll(t0 + 3s).empty());
}

TEST_F(FileWatch, AnEditUndoneBeforeItSettlesIsNoChange) {
    grader::change_detector watch({kernel}, 300ms);
    write(kernel, "oops");
    EXPECT_TRUE(watch.poll(t0).empty());
    write(kernel, "__global__ void k() {}\n");
    touch(kernel);
    EXPECT_TRUE(watch.poll(t0 + 100ms).empty());
    EXPECT_TRUE(watch.poll(t0 + 1s).empty());
}

TEST_F(FileWatch, ARemovedAndARecreatedFileAreChanges) {
    grader::change_detector watch({kernel, helper}, 300ms);
    fs::remove(helper);
    watch.poll(t0);
    EXPECT_EQ(watch.poll(t0 + 1s), std::vector<fs::path>{helper});
    write(helper, "int helper();\n");  // back, as it was: a change from "missing"
    watch.poll(t0 + 2s);
    EXPECT_EQ(watch.poll(t0 + 3s), std::vector<fs::path>{helper});
}

TEST_F(FileWatch, AFileThatAppearsIsAChange) {
    const fs::path later = dir / "later.cu";
    grader::change_detector watch({kernel, later}, 300ms);
    EXPECT_TRUE(watch.poll(t0 + 1s).empty());
    write(later, "// new\n");
    watch.poll(t0 + 2s);
    EXPECT_EQ(watch.poll(t0 + 3s), std::vector<fs::path>{later});
}

TEST_F(FileWatch, RebaseTakesTheFilesAsTheyAre) {
    grader::change_detector watch({kernel}, 300ms);
    write(kernel, "edited, then regraded by hand");
    watch.rebase();
    watch.poll(t0);
    EXPECT_TRUE(watch.poll(t0 + 1s).empty());
}

TEST(FileSnapshot, KeepsTheHashWhileTimeAndSizeStay) {
    course::temp_dir dir{"grader-snapshot-test"};
    const fs::path file = dir / "a.cu";
    write(file, "abc");
    const auto first = grader::take_snapshot({file});
    ASSERT_TRUE(first.at(file).exists);
    EXPECT_EQ(first.at(file).size, 3u);
    const auto again = grader::take_snapshot({file}, first);
    EXPECT_EQ(again.at(file).hash, first.at(file).hash);
    EXPECT_TRUE(grader::changed_files(first, again).empty());
    write(file, "abd");
    touch(file);
    EXPECT_EQ(grader::changed_files(first, grader::take_snapshot({file}, first)), std::vector<fs::path>{file});
}
