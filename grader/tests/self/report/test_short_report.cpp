// The short view of the text report (text_report.cpp): tests that fail for
// one reason are said once, the next step first; --verbose keeps every
// test's own messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <fmt/format.h>

#include <sstream>

#include "report/failure_groups.hpp"
#include "report/formats.hpp"
#include "report/report_json.hpp"

namespace {

using grader::graded_test;
using grader::test_status;

const char* const todo_message =
    "not implemented yet: lesson01::vecadd in exercises/01_vecadd/vecadd.cu:29\n"
    "this part is unfinished: write it, then delete the course::todo(...) call";

graded_test failing(const std::string& id, const std::string& title, int points, std::vector<std::string> messages) {
    graded_test t{id, title, points};
    t.status = test_status::failed;
    t.messages = std::move(messages);
    return t;
}

// lesson01 as a student first sees it: every correctness test stopped by
// the same course::todo, the speed test waiting.
grader::lesson_report untouched() {
    grader::lesson_report r;
    r.lesson_id = "lesson01";
    r.title = "vector addition";
    r.variant = "exercise";
    r.readme = "lessons/01_vecadd/README.md";
    r.device = "NVIDIA H200 (sm_90)";
    r.seed = 1;
    for (int i = 0; i < 10; ++i)
        r.tests.push_back(failing(fmt::format("VecAdd.T{}", i), fmt::format("test {}", i), i < 4 ? 2 : 1, {todo_message}));
    graded_test perf{"VecAdd.Bandwidth", "bandwidth >= 60% of this GPU's copy bandwidth", 2};
    perf.performance = true;
    perf.status = test_status::not_run;
    r.tests.push_back(perf);
    return r;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::size_t columns(const std::string& line) {
    return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

TEST(ShortReport, APartNotStartedIsOneGroupWithItsPlaceAndWhatItBlocks) {
    const std::string text = grader::format_text(untouched(), {false, true, false, 80});
    EXPECT_EQ(text,
              "lesson01 · vector addition · exercise · NVIDIA H200 (sm_90) · seed 1\n"
              "\n"
              "  ✗ not started: lesson01::vecadd               exercises/01_vecadd/vecadd.cu:29\n"
              "      write it, then delete the course::todo(...) call\n"
              "      it blocks 10 tests (14 points); the speed test waits for them\n"
              "\n"
              "  score 0/16 · next: read lessons/01_vecadd/README.md, then grader hint lesson01\n");
    for (const auto& line : lines(text)) EXPECT_LE(columns(line), 80u) << line;
}

TEST(ShortReport, VerboseKeepsEveryTestsOwnMessages) {
    const std::string text = grader::format_text(untouched(), {false, true, true, 80});
    EXPECT_NE(text.find("✗ test 9"), std::string::npos) << text;
    EXPECT_NE(text.find("(needs correctness first)"), std::string::npos) << text;
    const auto all = lines(text);
    EXPECT_EQ(std::count_if(all.begin(), all.end(),
                            [](const std::string& l) { return l.find("not implemented yet") != std::string::npos; }),
              10);
    EXPECT_NE(text.find("score 0/16 · next: grader hint lesson01"), std::string::npos) << text;
}

// --verbose names each test's id, the one `grader run --test` takes; the
// short view does not.
TEST(ShortReport, VerboseShowsEachTestsId) {
    const std::string verbose = grader::format_text(untouched(), {false, true, true, 80});
    EXPECT_NE(verbose.find("✗ test 3"), std::string::npos) << verbose;
    EXPECT_NE(verbose.find("\n      test id: VecAdd.T3\n"), std::string::npos) << verbose;
    EXPECT_NE(verbose.find("test id: VecAdd.Bandwidth"), std::string::npos) << verbose;
    const std::string short_view = grader::format_text(untouched(), {false, true, false, 80});
    EXPECT_EQ(short_view.find("test id"), std::string::npos) << short_view;
}

// Without a GPU the GPU tests are skipped, and the reason is said once; the
// verbose view still lists each of them with its id, so that a student
// without a GPU finds the ids too.
TEST(ShortReport, VerboseListsSkippedTestsWithTheirIdsAndSaysWhyOnce) {
    auto r = untouched();
    r.device.clear();
    r.no_gpu_reason = "cudaGetDeviceCount returned cudaErrorNoDevice";
    for (auto& t : r.tests) {
        t.status = test_status::skipped;
        t.messages = {"no CUDA device"};
    }
    const std::string text = grader::format_text(r, {false, true, true, 80});
    EXPECT_NE(text.find("11 GPU tests skipped; nothing was graded"), std::string::npos) << text;
    EXPECT_NE(text.find("test id: VecAdd.T9"), std::string::npos) << text;
    EXPECT_NE(text.find("test id: VecAdd.Bandwidth"), std::string::npos) << text;
    EXPECT_EQ(text.find("no CUDA device\n"), std::string::npos) << "said once, not per test:\n" << text;
}

TEST(ShortReport, EachPartNotStartedIsNamedOnceAndTheFirstSaysWhatToDo) {
    auto r = untouched();
    r.tests[7].messages = {"not implemented yet: lesson01::helper in exercises/01_vecadd/vecadd.cu:40\nthis part..."};
    const auto groups = grader::group_failures(r);
    ASSERT_EQ(groups.unfinished.size(), 2u);
    EXPECT_EQ(groups.unfinished[0].part, "lesson01::vecadd");
    EXPECT_EQ(groups.unfinished[0].location, "exercises/01_vecadd/vecadd.cu:29");
    EXPECT_EQ(groups.unfinished[0].tests.size(), 9u);
    EXPECT_EQ(groups.unfinished[1].part, "lesson01::helper");
    EXPECT_EQ(groups.unfinished[1].points, 1);
    const std::string text = grader::format_text(r, {false, true, false, 80});
    EXPECT_NE(text.find("      it blocks 9 tests (13 points)\n"
                        "  ✗ 1 more part not started (1 test, 1 point):\n"
                        "      lesson01::helper  exercises/01_vecadd/vecadd.cu:40\n"
                        "      the speed test waits for them\n"),
              std::string::npos)
        << text;
    const auto all = lines(text);
    EXPECT_EQ(std::count_if(all.begin(), all.end(),
                            [](const std::string& l) { return l.find("write it, then delete") != std::string::npos; }),
              1);
}

TEST(ShortReport, TheSpeedTestWaitsForEveryCorrectnessTestWhenOthersFailToo) {
    auto r = untouched();
    r.tests[9].messages = {"element 0: expected 1, got NaN"};
    const std::string text = grader::format_text(r, {false, true, false, 0});
    EXPECT_NE(text.find("it blocks 9 tests (13 points); the speed test waits for every correctness test\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("✗ test 9"), std::string::npos) << text;
}

TEST(ShortReport, TestsThatFailTheSameWayAreShownOnceWithTheOthersNamed) {
    grader::lesson_report r = untouched();
    r.tests.clear();
    constexpr const char* finding =
        "compute-sanitizer (memcheck): out-of-bounds read of 4 bytes to global memory in vecadd_kernel at "
        "vecadd.cu:18, thread ({},0,0) block (1,0,0); the address is a[{}]";
    r.tests.push_back(failing("A.a", "127 elements", 1, {fmt::format(fmt::runtime(finding), 4, 132), "threw cudaErrorIllegalAddress"}));
    graded_test pass{"A.b", "128 elements", 1};
    pass.status = test_status::passed;
    r.tests.push_back(pass);
    r.tests.push_back(failing("A.c", "129 elements", 2, {fmt::format(fmt::runtime(finding), 96, 1100)}));
    r.tests.push_back(failing("A.d", "1025 elements", 2, {fmt::format(fmt::runtime(finding), 0, 1040)}));
    r.tests.push_back(failing("A.e", "empty", 1, {"element 0: expected 1, got NaN"}));
    const std::string text = grader::format_text(r, {false, true, false, 0});
    EXPECT_NE(text.find("a[132]"), std::string::npos) << text;    // the first, in full
    EXPECT_EQ(text.find("a[1100]"), std::string::npos) << text;   // the others, by title
    EXPECT_NE(text.find("      the same in 2 more tests (4 points): 129 elements; 1025 elements\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("✓ 128 elements"), std::string::npos) << text;
    EXPECT_NE(text.find("element 0: expected 1, got NaN"), std::string::npos) << text;  // a reason of its own
    EXPECT_EQ(text.find("✗ 129 elements"), std::string::npos) << text;
}

TEST(ShortReport, LongMessagesWrapToTheTerminal) {
    grader::lesson_report r = untouched();
    r.tests = {failing("A.a", "127 elements", 1,
                       {"compute-sanitizer (memcheck): out-of-bounds read of 4 bytes to global memory in vecadd_kernel "
                        "at vecadd.cu:18, thread (4,0,0) block (1,0,0); the address is a[132], past the end of input a "
                        "(129 elements: a[0] to a[128]); unmapped memory starts 12 bytes after a's end"})};
    const std::string text = grader::format_text(r, {false, true, false, 80});
    const auto all = lines(text);
    for (const auto& line : all) EXPECT_LE(columns(line), 80u) << line;
    const auto first = std::find_if(all.begin(), all.end(),
                                    [](const std::string& l) { return l.rfind("      compute-sanitizer", 0) == 0; });
    ASSERT_NE(first, all.end()) << text;
    ASSERT_NE(first + 1, all.end());
    EXPECT_EQ((first + 1)->rfind("        ", 0), 0u) << "continuation lines are indented under the message: " << text;
    // Not wrapped where the width is not known (a file, a pipe).
    EXPECT_NE(grader::format_text(r, {false, true, false, 0}).find("bytes after a's end\n"), std::string::npos);
}

// The report of a real run: the untouched lesson01 graded on an H200
// (`grader run lesson01 --format json`, fixtures/first_report_lesson01.json)
// fills 15 rows or fewer of an 80-column terminal, every line within it.
TEST(ShortReport, TheUntouchedLesson01FitsAScreen) {
    std::ifstream in(std::string(GRADER_FIXTURES) + "/first_report_lesson01.json");
    ASSERT_TRUE(in) << "missing fixture";
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const grader::lesson_report r = grader::report_from_json(json);
    ASSERT_EQ(r.tests.size(), 11u);
    const std::string text = grader::format_text(r, {false, true, false, 80});
    const auto all = lines(text);
    EXPECT_LE(all.size(), 15u) << text;
    for (const auto& line : all) EXPECT_LE(columns(line), 80u) << line;
    EXPECT_NE(text.find("not started: lesson01::vecadd"), std::string::npos) << text;
    EXPECT_NE(text.find("exercises/01_vecadd/vecadd.cu:29"), std::string::npos) << text;
    EXPECT_NE(text.find("it blocks 10 tests (14 points); the speed test waits for them"), std::string::npos) << text;
}

}  // namespace
