// The batch's gradebook CSV (gradebook.hpp): the columns Canvas and
// Gradescope import, RFC 4180 quoting, UTF-8 without a byte-order mark, and
// rows for students who did not compile or were not graded.
#include <gtest/gtest.h>

#include <sstream>

#include "batch/gradebook.hpp"
#include "batch_test_files.hpp"
#include "course/temp_dir.hpp"

namespace grader {
namespace {

lesson_report report_with(bool single_passes, bool partial_passes) {
    lesson_report r;
    r.lesson_id = "lesson01";
    r.title = "vector addition";
    r.variant = "exercise";
    graded_test single{"VecAdd.SingleElement", "single element", 1};
    single.status = single_passes ? test_status::passed : test_status::failed;
    graded_test partial{"VecAdd.PartialLastBlock", "129 elements", 2};
    partial.status = partial_passes ? test_status::passed : test_status::failed;
    graded_test speed{"VecAdd.Bandwidth", "bandwidth", 3};
    speed.performance = true;
    speed.status = single_passes && partial_passes ? test_status::passed : test_status::not_run;
    r.tests = {single, partial, speed};
    return r;
}

batch_result row(const std::string& student, std::optional<lesson_report> report) {
    batch_result r;
    r.student = student;
    r.report = std::move(report);
    return r;
}

std::vector<std::string> lines_of(const std::string& csv) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < csv.size()) {
        const auto end = csv.find("\r\n", start);
        lines.push_back(csv.substr(start, end - start));
        start = end == std::string::npos ? csv.size() : end + 2;
    }
    return lines;
}

TEST(BatchGradebook, HeaderScoresAndPointsPerTestInStudentOrder) {
    const std::string csv = format_gradebook_csv({row("zoe", report_with(true, true)), row("amy", report_with(true, false))});
    EXPECT_EQ(lines_of(csv),
              (std::vector<std::string>{
                  "student,score,max_score,VecAdd.SingleElement,VecAdd.PartialLastBlock,VecAdd.Bandwidth,note",
                  "amy,1,6,1,0,0,", "zoe,6,6,1,2,3,"}));
}

TEST(BatchGradebook, IsUtf8WithoutAByteOrderMarkAndEndsLinesWithCrlf) {
    const std::string csv = format_gradebook_csv({row("José Müller", report_with(true, true))});
    EXPECT_EQ(csv.rfind("student,", 0), 0u) << "no byte-order mark before the header";
    EXPECT_NE(csv.find("José Müller,6,6"), std::string::npos) << csv;
    EXPECT_EQ(csv.find('\n'), csv.find("\r\n") + 1) << "every line ends in CRLF";
    EXPECT_EQ(csv.substr(csv.size() - 2), "\r\n");
}

TEST(BatchGradebook, QuotesCommasQuotesAndLineBreaksInNames) {
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("Lovelace, Ada"), "\"Lovelace, Ada\"");
    EXPECT_EQ(csv_field("Ada \"the first\" Lovelace"), "\"Ada \"\"the first\"\" Lovelace\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_field("carriage\rreturn"), "\"carriage\rreturn\"");
    EXPECT_EQ(csv_field("bad \xff byte"), "bad \xEF\xBF\xBD byte") << "not UTF-8: replaced, not passed on";
    EXPECT_EQ(csv_field("\xC3\xA9t\xC3\xA9"), "\xC3\xA9t\xC3\xA9") << "valid UTF-8 is kept";
    const std::string csv = format_gradebook_csv({row("Lovelace, Ada", report_with(true, true))});
    EXPECT_NE(csv.find("\r\n\"Lovelace, Ada\",6,6,"), std::string::npos) << csv;
}

TEST(BatchGradebook, ANotGradedStudentHasNoScoreAndAReason) {
    batch_result lost = row("alan", std::nullopt);
    lost.not_graded = "the GPU fell off the bus";
    lesson_report no_gpu = report_with(false, false);
    no_gpu.no_gpu_reason = "cudaGetDeviceCount returned cudaErrorNoDevice";
    for (auto& t : no_gpu.tests) t.status = test_status::skipped;
    const auto lines = lines_of(format_gradebook_csv({row("ada", report_with(true, true)), lost, row("bob", no_gpu)}));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[2], "alan,,6,,,,not graded: the GPU fell off the bus");
    EXPECT_EQ(lines[3], "bob,,6,,,,not graded: its GPU tests could not run here (no GPU: cudaGetDeviceCount "
                        "returned cudaErrorNoDevice): grade the class on a GPU machine");
}

// lesson01 graded where there is no GPU: its CPU tests ran and passed, its
// GPU tests were skipped. A score of the CPU tests alone would import as the
// student's grade; the row has none, and says why.
TEST(BatchGradebook, ABatchWithoutAGpuWritesNoScoreForLesson01) {
    lesson_report r;
    r.lesson_id = "lesson01";
    r.title = "vector addition";
    r.variant = "submission";
    r.no_gpu_reason = "cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable device is detected)";
    graded_test gpu{"VecAdd.SingleElement", "single element", 1};
    gpu.status = test_status::skipped;
    gpu.messages = {"no CUDA device: " + r.no_gpu_reason};
    graded_test speed{"VecAdd.Bandwidth", "bandwidth", 2};
    speed.performance = true;
    speed.status = test_status::skipped;
    graded_test cpu{"VecAddCpu.UnevenSplit", "CPU: 1,000,003 elements over 7 threads", 2};
    cpu.gpu = false;
    cpu.status = test_status::passed;
    graded_test cpu_empty{"VecAddCpu.Empty", "CPU: empty input writes nothing", 1};
    cpu_empty.gpu = false;
    cpu_empty.status = test_status::passed;
    r.tests = {gpu, speed, cpu, cpu_empty};
    ASSERT_TRUE(r.graded()) << "the CPU tests really ran";
    ASSERT_EQ(r.score(), 3) << "what the CPU tests earned: what must not reach the gradebook";

    const batch_result no_gpu = row("ada", r);
    EXPECT_EQ(no_gpu.state(), batch_result::outcome::not_graded);
    const auto lines = lines_of(format_gradebook_csv({no_gpu}));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "student,score,max_score,VecAdd.SingleElement,VecAdd.Bandwidth,VecAddCpu.UnevenSplit,"
                        "VecAddCpu.Empty,note");
    EXPECT_EQ(lines[1], "ada,,6,,,,,not graded: its GPU tests could not run here (no GPU: cudaGetDeviceCount "
                        "returned cudaErrorNoDevice (no CUDA-capable device is detected)): grade the class on a GPU "
                        "machine")
        << "no score and no points per test, not even the CPU tests': an import leaves the grade alone";
}

TEST(BatchGradebook, WithNoReportAtAllTheMaximumIsLeftEmpty) {
    batch_result lost = row("alan", std::nullopt);
    lost.not_graded = "no GPU answered";
    EXPECT_EQ(lines_of(format_gradebook_csv({lost})),
              (std::vector<std::string>{"student,score,max_score,note", "alan,,,not graded: no GPU answered"}));
}

TEST(BatchGradebook, ABuildFailureScoresZeroAndSaysWhy) {
    batch_result broken = row("carl", report_with(false, false));
    broken.build_failed = true;
    broken.build_error = "lesson01 does not compile";
    batch_result reportless = row("dora", std::nullopt);
    reportless.build_failed = true;
    const auto lines = lines_of(format_gradebook_csv({row("ada", report_with(true, true)), broken, reportless}));
    EXPECT_EQ(lines[2], "carl,0,6,0,0,0,did not compile: no tests ran");
    EXPECT_EQ(lines[3], "dora,0,6,0,0,0,did not compile: no tests ran");
}

TEST(BatchGradebook, SubmissionProblemsAndSkippedTestsAreInTheNote) {
    batch_result ada = row("ada", report_with(true, false));
    ada.problems = {"missing pipeline.cu: graded as the untouched skeleton would be", "ignored 2 files"};
    batch_result part = row("ben", report_with(true, true));
    part.report->tests[2].status = test_status::skipped;
    part.report->no_gpu_reason = "no device";
    const auto lines = lines_of(format_gradebook_csv({ada, part}));
    EXPECT_EQ(lines[1], "ada,1,6,1,0,0,missing pipeline.cu: graded as the untouched skeleton would be; ignored 2 files");
    EXPECT_EQ(lines[2], "ben,,6,,,,not graded: its GPU tests could not run here (no GPU: no device): grade the class "
                        "on a GPU machine")
        << "one skipped test and the rest is no score: 3 of 6 would import as the grade";
}

TEST(BatchGradebook, AGradeMadeWithoutTheSandboxSaysSo) {
    batch_result open = row("ada", report_with(true, true));
    open.sandboxed = false;
    batch_result broken = row("bob", report_with(false, false));
    broken.build_failed = true;
    broken.sandboxed = false;
    const auto lines = lines_of(format_gradebook_csv({open, broken, row("cy", report_with(true, true))}));
    const std::string note = "NOT SANDBOXED: the student's code ran with the grader's rights";
    EXPECT_EQ(lines[1], "ada,6,6,1,2,3," + note);
    EXPECT_EQ(lines[2], "bob,0,6,0,0,0,did not compile: no tests ran; " + note);
    EXPECT_EQ(lines[3], "cy,6,6,1,2,3,") << "a sandboxed grade needs no word";
}

TEST(BatchGradebook, EmailAndSidColumnsWhenTheExportKnowsThem) {
    batch_result ada = row("Ada Lovelace", report_with(true, true));
    ada.email = "ada@example.edu";
    ada.sid = "1815";
    const auto lines = lines_of(format_gradebook_csv({ada, row("folder-student", report_with(true, true))}));
    EXPECT_EQ(lines[0].rfind("student,email,sid,score,max_score,", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1].rfind("Ada Lovelace,ada@example.edu,1815,6,6,", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2].rfind("folder-student,,,6,6,", 0), 0u) << lines[2];
}

TEST(BatchGradebook, WrittenWholeToAFile) {
    course::temp_dir dir("batch-gradebook");
    const std::vector<batch_result> rows = {row("ada", report_with(true, true))};
    write_gradebook(dir / "out/gradebook.csv", rows);
    EXPECT_EQ(batch_test::read(dir / "out/gradebook.csv"), format_gradebook_csv(rows));
}

// On a GPU, a test this GPU cannot run (lesson05's overlap with one copy
// engine) is left blank and said; the rest is graded as usual.
TEST(BatchGradebook, ATestThisGpuSkipsIsBlankAndTheRestIsGraded) {
    lesson_report r = report_with(true, true);
    r.device = "a GPU with one copy engine";
    r.tests[2].status = test_status::skipped;
    r.tests[2].messages = {"1 copy engine"};
    const batch_result cy = row("cy", r);
    EXPECT_EQ(cy.state(), batch_result::outcome::graded);
    EXPECT_EQ(lines_of(format_gradebook_csv({cy})).at(1), "cy,3,6,1,2,,1 test skipped on this GPU");
}

}  // namespace
}  // namespace grader
