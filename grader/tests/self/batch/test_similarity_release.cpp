// `grader release`'s check (batch/similarity_release.hpp, checkout/release.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "batch/similarity_release.hpp"
#include "batch_test_files.hpp"
#include "system/user_error.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

const fs::path course_root = fs::path(GRADER_FIXTURES).parent_path().parent_path().parent_path();

// Prints every passage of the edition in $RELEASE_SCAN_EDITION holding 5% of a solution file or more.
TEST(ReleaseCheckOfATree, DISABLED_Scan) {
    const char* edition = std::getenv("RELEASE_SCAN_EDITION");
    ASSERT_NE(edition, nullptr);
    const double share = std::getenv("SHARE") ? std::atof(std::getenv("SHARE")) : 0.05;
    const std::size_t k = std::getenv("K") ? std::atoi(std::getenv("K")) : 12;
    for (const auto& l : find_solution_leaks(course_root, edition, share, std::getenv("MIN") ? std::atoi(std::getenv("MIN")) : 1, k))
        std::cout << l.file.string() << " " << describe_leak_lines(l.lines) << (l.form.empty() ? "" : " (" + l.form + ")")
                  << ": " << static_cast<int>(l.share * 100) << "% of " << l.solution.string() << " "
                  << (l.definition.first ? describe_leak_lines({l.definition}) : "whole") << " (" << l.tokens
                  << " of " << l.solution_tokens << ")\n";
}

std::string lines_from(const fs::path& file, int first, int last) {
    std::istringstream in(batch_test::read(file));
    std::string out, line;
    for (int n = 1; std::getline(in, line); ++n)
        if (n >= first && n <= last) out += line + "\n";
    return out;
}

// A scratch folder of the test's own.
struct ReleaseCheck : ::testing::Test {
    void SetUp() override {
        edition = fs::temp_directory_path() / ("release-check-" + std::to_string(::getpid()));
        fs::remove_all(edition);
        fs::create_directories(edition);
    }
    void TearDown() override { fs::remove_all(edition); }
    std::vector<solution_leak> leaks() const {
        const auto found = find_solution_leaks(course_root, edition);
        for (const auto& l : found)
            std::cout << "  " << l.file.string() << " " << describe_leak_lines(l.lines)
                      << (l.form.empty() ? "" : " (" + l.form + ")") << ": " << static_cast<int>(l.share * 100)
                      << "% of " << l.solution.string() << "\n";
        return found;
    }
    fs::path edition;
};

// lesson05's time_with_events, as the reference writes it.
const fs::path events = course_root / "solutions" / "05_streams" / "events.cu";
const std::string time_with_events = lines_from(events, 6, 19);

TEST_F(ReleaseCheck, ASolutionInAReadmesFencedBlockIsFound) {
    batch_test::write(edition / "lessons" / "05_streams" / "README.md",
                      "# Streams\n\nTiming is easy:\n\n```cpp\n" + time_with_events + "```\n\nThat is all.\n");
    const auto found = leaks();
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].file, fs::path("lessons/05_streams/README.md"));
    EXPECT_EQ(found[0].solution, fs::path("solutions/05_streams/events.cu"));
    EXPECT_GE(found[0].share, 0.9);
    ASSERT_FALSE(found[0].lines.empty());
    EXPECT_GE(found[0].lines.front().first, 6) << "the fenced block's lines, not the prose";
}

TEST_F(ReleaseCheck, ASolutionInAPlusLineOfADiffIsFound) {
    // The naive kernel as a patch against the skeleton: the answer in + lines.
    std::string patch = "--- a/exercises/07_matmul/matmul_naive.cu\n+++ b/exercises/07_matmul/matmul_naive.cu\n"
                        "@@ -10,3 +10,12 @@\n";
    std::istringstream kernel(lines_from(course_root / "solutions" / "07_matmul" / "matmul_naive.cu", 1, 99));
    for (std::string line; std::getline(kernel, line);) patch += "+" + line + "\n";
    batch_test::write(edition / "grader" / "notes" / "naive.patch", patch);
    const auto found = leaks();
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].file, fs::path("grader/notes/naive.patch"));
    EXPECT_EQ(found[0].solution, fs::path("solutions/07_matmul/matmul_naive.cu"));
    EXPECT_EQ(found[0].form, "the new side of its diff");
}

TEST_F(ReleaseCheck, ASolutionInANotebooksCodeCellIsFound) {
    nlohmann::json cells = nlohmann::json::array();
    cells.push_back({{"cell_type", "markdown"}, {"metadata", nlohmann::json::object()},
                     {"source", nlohmann::json::array({"# Lesson 1\n", "Add two vectors.\n"})}});
    nlohmann::json source = nlohmann::json::array({"%%writefile exercises/01_vecadd/vecadd.cu\n"});
    std::istringstream kernel(lines_from(course_root / "solutions" / "01_vecadd" / "vecadd.cu", 1, 200));
    for (std::string line; std::getline(kernel, line);) source.push_back(line + "\n");
    cells.push_back({{"cell_type", "code"}, {"metadata", nlohmann::json::object()}, {"source", source},
                     {"outputs", nlohmann::json::array()}, {"execution_count", nullptr}});
    const nlohmann::json notebook = {{"cells", cells}, {"metadata", nlohmann::json::object()}, {"nbformat", 4},
                                     {"nbformat_minor", 5}};
    batch_test::write(edition / "colab" / "course.ipynb", notebook.dump(1));
    const auto found = leaks();
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].file, fs::path("colab/course.ipynb"));
    EXPECT_EQ(found[0].form, "cell 2");
    EXPECT_EQ(found[0].solution, fs::path("solutions/01_vecadd/vecadd.cu"));
    ASSERT_FALSE(found[0].lines.empty());
    EXPECT_GT(found[0].lines.front().first, 10) << "lines of the notebook's own text, where the cell is";
}

TEST_F(ReleaseCheck, RenamedAndRewrittenItIsFoundAllTheSame) {
    std::string disguised = std::regex_replace(time_with_events, std::regex("\\bstart\\b"), "t0");
    disguised = std::regex_replace(std::regex_replace(disguised, std::regex("\\bstop\\b"), "t1"), std::regex(";"), ";;");
    batch_test::write(edition / "lessons" / "05_streams" / "hints.md", "1. Like this:\n\n" + disguised);
    const auto found = leaks();
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].file, fs::path("lessons/05_streams/hints.md"));
}

// The skeleton itself, the contract, and a worked example of a sibling
// problem (a transpose, not the lesson's product) hold no answer.
TEST_F(ReleaseCheck, TheSkeletonAndASiblingProblemAreNotRefused) {
    for (const char* lesson : {"05_streams", "07_matmul"})
        for (const auto& e : fs::directory_iterator(course_root / "exercises" / lesson))
            fs::copy_file(e.path(), edition / fs::path(lesson).concat(e.path().filename().string()));
    batch_test::write(edition / "lessons" / "07_matmul" / "README.md", R"(# Matrices

A worked example, the transpose: each thread moves one element.

```cuda
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
```

Time a call with two events on its stream: record, call, record, synchronize.
)");
    EXPECT_TRUE(leaks().empty());
}

// `grader release` end to end on a repository of one lesson: refused, with
// the file, its lines and the share named, and nothing left written; once
// the text teaches something else, released.
TEST_F(ReleaseCheck, TheReleaseRefusesAnEditionWithASolutionAndWritesNothing) {
    const fs::path repo = edition / "repo", out = edition / "out";
    fs::create_directories(repo / "exercises" / "05_streams");
    fs::copy_file(course_root / "exercises" / "05_streams" / "events.cu", repo / "exercises" / "05_streams" / "events.cu");
    batch_test::write(repo / "solutions" / "05_streams" / "events.cu", batch_test::read(events));
    batch_test::write(repo / ".gitattributes", "/solutions export-ignore\n/solutions/** export-ignore\n");
    batch_test::write(repo / "lessons" / "05_streams" / "README.md", "# Streams\n\n```cpp\n" + time_with_events + "```\n");
    const std::string git = "git -C '" + repo.string() + "' -c user.name=t -c user.email=t@localhost -c commit.gpgsign=false ";
    ASSERT_EQ(std::system((git + "init -q && " + git + "add -A && " + git + "commit -qm planted").c_str()), 0);
    const solution_leak_check check = [](const auto& full, const auto& e) { return find_solution_leaks(full, e); };
    try {
        write_student_edition(repo, "HEAD", out, check);
        ADD_FAILURE() << "released an edition with time_with_events in its README";
    } catch (const user_error& e) {
        const std::string what = e.what();
        std::cout << what << "\n";
        EXPECT_NE(what.find("lessons/05_streams/README.md lines "), std::string::npos) << what;
        EXPECT_NE(what.find("% of solutions/05_streams/events.cu"), std::string::npos) << what;
        EXPECT_NE(what.find("62.5% or more"), std::string::npos) << what;
    }
    EXPECT_FALSE(fs::exists(out));

    batch_test::write(repo / "lessons" / "05_streams" / "README.md", "# Streams\n\nRecord, work, record, wait.\n");
    ASSERT_EQ(std::system((git + "commit -qam reworded").c_str()), 0);
    const release_result r = write_student_edition(repo, "HEAD", out, check);
    EXPECT_TRUE(fs::exists(out / "lessons" / "05_streams" / "README.md"));
    EXPECT_FALSE(fs::exists(out / "solutions"));
    EXPECT_GT(r.files, 0u);
}

}  // namespace
}  // namespace grader
