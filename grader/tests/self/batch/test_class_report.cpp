// The batch's class report (class_report.hpp): the numbers computed in C++,
// and the page and pictures grader/plot/class_report.py draws from them when
// this machine has a Python with matplotlib.
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>

#include "batch/class_report.hpp"
#include "batch_test_files.hpp"
#include "checkout/context.hpp"
#include "course/temp_dir.hpp"
#include "system/python.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

graded_test test(const std::string& id, int points, test_status status, std::vector<std::string> messages = {}) {
    graded_test t{id, id + " title", points};
    t.status = status;
    t.messages = std::move(messages);
    return t;
}

// A student who rounded the grid down: the partial block never ran. The
// expected value differs with every student's seed.
batch_result rounded_down(const std::string& student, double expected) {
    batch_result r;
    r.student = student;
    r.worker = "node1 GPU 0";
    lesson_report rep;
    rep.lesson_id = "lesson01";
    rep.device = "NVIDIA H200 (sm_90)";
    rep.tests = {test("VecAdd.SingleElement", 1, test_status::passed),
                 test("VecAdd.PartialLastBlock", 2, test_status::failed,
                      {fmt::format("element 128: expected {}, got NaN (never written)\nthe last, partial block did not "
                                   "run: 129 elements need 2 blocks of 128, so round the grid up",
                                   expected)}),
                 test("VecAdd.Bandwidth", 3, test_status::not_run, {"needs correctness first"})};
    r.report = rep;
    return r;
}

batch_result full_marks(const std::string& student) {
    batch_result r = rounded_down(student, 0);
    r.worker = "node2 GPU 1";
    r.report->device = "NVIDIA H100 (sm_90)";
    for (auto& t : r.report->tests) {
        t.status = test_status::passed;
        t.messages.clear();
    }
    return r;
}

batch_result crashed(const std::string& student) {
    batch_result r = rounded_down(student, 0);
    r.report->tests[1] = test("VecAdd.PartialLastBlock", 2, test_status::crashed,
                              {"the test program crashed during this test: signal 11 (SIGSEGV, a segmentation fault)",
                               "  log tail"});
    return r;
}

batch_result build_failure(const std::string& student, int line) {
    batch_result r = rounded_down(student, 0);
    for (auto& t : r.report->tests) t.status = test_status::failed;
    r.build_failed = true;
    r.build_error = fmt::format("\nlesson01 does not compile, so no tests ran.\n\n  vecadd.cu:{}:5: error: expected ';' "
                                "before '}}' token\n\nfull log: build/grader-build.log\n",
                                line);
    return r;
}

batch_result not_graded(const std::string& student) {
    batch_result r;
    r.student = student;
    r.not_graded = "the worker on node3 stopped answering";
    return r;
}

std::vector<batch_result> a_class() {
    return {rounded_down("ada", 1.2431), rounded_down("bob", -0.5), rounded_down("cy", 3.75), full_marks("dee"),
            crashed("eve"),            build_failure("fay", 12),  build_failure("gus", 14), not_graded("hal")};
}

TEST(BatchClassReport, ADiagnosisIsTheExplanationThatEndsAFailure) {
    EXPECT_EQ(diagnosis_of(test("T.a", 1, test_status::failed, {"element 3: expected 1, got 2\nthe index ignores blockIdx.x"})),
              "the index ignores blockIdx.x");
    EXPECT_EQ(diagnosis_of(test("T.b", 1, test_status::crashed, {"the test program crashed: signal 11", "log"})),
              "the test program crashed: signal 11");
    EXPECT_EQ(diagnosis_of(test("T.c", 1, test_status::missing)), "missing");
    EXPECT_EQ(diagnosis_of(test("T.d", 1, test_status::failed, {"  \n  only line  \n\n"})), "only line");
    // The case that failed is context, not the diagnosis.
    EXPECT_EQ(diagnosis_of(test("T.e", 1, test_status::failed,
                                {"wrote past the end: 1 element(s)\nguard the store\n(with n = 129, 128 threads)"})),
              "guard the store");
    // A tool's finding, without what differs between students.
    EXPECT_EQ(diagnosis_of(test("T.f", 1, test_status::failed,
                                {"compute-sanitizer (memcheck): out-of-bounds read of 4 bytes in k at a.cu:18, thread "
                                 "(1,0,0) block (3,0,0)",
                                 "wrote past the end"})),
              "compute-sanitizer (memcheck): out-of-bounds read of 4 bytes in k at a.cu:18");
    // A profile's finding: what was measured, not the advice.
    EXPECT_EQ(diagnosis_of(test("T.g", 1, test_status::failed,
                                {"Nsight Compute: k: 77% of its wavefronts are replays. The change most likely to help: "
                                 "pad each row",
                                 "0.77x; 2x is needed"})),
              "Nsight Compute: k: 77% of its wavefronts are replays");
}

TEST(BatchClassReport, NumbersAreMaskedSoOneMistakeCountsOnce) {
    EXPECT_EQ(without_numbers("element 1,048,576: expected 1.2431, got -3"), "element #: expected #, got -#");
    EXPECT_EQ(without_numbers("vecadd.cu:42:7: error"), "vecadd.cu:#:#: error");
    EXPECT_EQ(without_numbers("no digits here."), "no digits here.");
}

TEST(BatchClassReport, CountsLossesDiagnosesBuildFailuresAndWhoGradedWhom) {
    const json d = class_report_data("lesson01", "vector addition", a_class());
    EXPECT_EQ(d["schema"], "course-class-report/1");
    EXPECT_EQ(d["students"], 8);
    EXPECT_EQ(d["graded"], 7) << "build failures are graded (zero); not-graded is not";
    EXPECT_EQ(d["build_failures"], 2);
    EXPECT_EQ(d["not_graded"], 1);
    EXPECT_EQ(d["max_score"], 6);
    EXPECT_EQ(d["scores"], json::array({0, 0, 1, 1, 1, 1, 6}));
    EXPECT_EQ(d["median"], 1);

    const json& tests = d["tests"];
    ASSERT_EQ(tests.size(), 3u);
    EXPECT_EQ(tests[1]["id"], "VecAdd.PartialLastBlock");
    EXPECT_EQ(tests[1]["lost"], 6) << "three rounded down, one crashed, two did not compile";
    EXPECT_DOUBLE_EQ(tests[1]["share"].get<double>(), 6.0 / 7);
    EXPECT_EQ(tests[0]["lost"], 2) << "only the build failures lost the single element";

    const json& top = d["diagnoses"][0];
    EXPECT_EQ(top["test"], "VecAdd.PartialLastBlock");
    EXPECT_EQ(top["students"], 3) << "three seeds, one mistake";
    EXPECT_NE(top["text"].get<std::string>().find("the last, partial block did not run"), std::string::npos);
    bool crash_listed = false;
    for (const auto& x : d["diagnoses"])
        crash_listed |= x["text"].get<std::string>().find("signal 11") != std::string::npos;
    EXPECT_TRUE(crash_listed) << d["diagnoses"].dump(2);

    ASSERT_EQ(d["build_errors"].size(), 1u) << "two lines, one error";
    EXPECT_EQ(d["build_errors"][0]["students"], 2);
    EXPECT_NE(d["build_errors"][0]["text"].get<std::string>().find("error: expected ';'"), std::string::npos);

    EXPECT_EQ(d["not_graded_students"][0]["student"], "hal");
    EXPECT_EQ(d["submissions"].size(), 8u);
    EXPECT_EQ(d["submissions"][3]["student"], "dee");
    EXPECT_EQ(d["submissions"][3]["device"], "NVIDIA H100 (sm_90)");
    EXPECT_EQ(d["submissions"][3]["worker"], "node2 GPU 1");
    int by_machines = 0;
    for (const auto& m : d["machines"]) by_machines += m["students"].get<int>();
    EXPECT_EQ(by_machines, 7);
}

// A batch without a GPU: the host tests passed, the GPU tests were skipped.
// No score in the class's numbers, only "not graded" and why.
TEST(BatchClassReport, ASubmissionWhoseGpuTestsDidNotRunHasNoScore) {
    batch_result no_gpu = full_marks("ivy");
    no_gpu.report->no_gpu_reason = "cudaGetDeviceCount returned cudaErrorNoDevice";
    no_gpu.report->tests[1].status = test_status::skipped;
    no_gpu.report->tests[2].status = test_status::skipped;
    const json d = class_report_data("lesson01", "vector addition", {full_marks("dee"), no_gpu});
    EXPECT_EQ(d["graded"], 1);
    EXPECT_EQ(d["not_graded"], 1);
    EXPECT_EQ(d["scores"], json::array({6})) << "ivy's single element (1 point) is no score";
    ASSERT_EQ(d["not_graded_students"].size(), 1u);
    EXPECT_EQ(d["not_graded_students"][0]["student"], "ivy");
    EXPECT_EQ(d["not_graded_students"][0]["reason"],
              "its GPU tests could not run here (no GPU: cudaGetDeviceCount returned cudaErrorNoDevice): grade the "
              "class on a GPU machine");
    EXPECT_FALSE(d["submissions"][1].contains("score"));
}

TEST(BatchClassReport, CountsTheSubmissionsGradedWithoutTheSandbox) {
    batch_result open = full_marks("dee");
    open.sandboxed = false;
    batch_result lost = not_graded("hal");
    lost.sandboxed = false;  // nothing ran: nothing to count
    const json d = class_report_data("lesson01", "vector addition", {open, full_marks("eve"), lost});
    EXPECT_EQ(d["unsandboxed"], 1);
    EXPECT_EQ(d["submissions"][0]["sandboxed"], false);
    EXPECT_FALSE(d["submissions"][1].contains("sandboxed"));
    EXPECT_EQ(class_report_data("lesson01", "vector addition", a_class())["unsandboxed"], 0);
}

TEST(BatchClassReport, AClassWithNothingGradedStillHasAReport) {
    const json d = class_report_data("lesson01", "vector addition", {not_graded("a"), not_graded("b")});
    EXPECT_EQ(d["graded"], 0);
    EXPECT_EQ(d["tests"].size(), 0u);
    EXPECT_EQ(d["scores"].size(), 0u);
}

fs::path script() { return fs::path(GRADER_PLOT_DIR) / "class_report.py"; }

TEST(BatchClassReport, ThePageIsSelfContainedAndThePicturesLieBesideIt) {
    course::temp_dir out("batch-class-report");
    std::vector<batch_result> results = a_class();
    results[0].student = "<script>alert('Ada')</script>";  // names are data, never markup
    try {
        write_class_report(class_report_data("lesson01", "vector addition", results), out / "report", script());
    } catch (const user_error& e) {
        if (std::string(e.what()).find("no Python with matplotlib") != std::string::npos)
            GTEST_SKIP() << "this machine has no Python with matplotlib, so the page cannot be drawn: " << e.what();
        throw;
    }
    for (const char* picture : {"score_histogram.png", "test_losses.png"}) {
        const std::string png = batch_test::read(out / "report" / picture);
        EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n") << picture;
        EXPECT_GT(png.size(), 5'000u) << picture << ": a drawing, not an empty canvas";
    }
    const std::string page = batch_test::read(out / "report/class_report.html");
    EXPECT_NE(page.find("<!DOCTYPE html>"), std::string::npos);
    EXPECT_NE(page.find("lesson01 · vector addition: class report"), std::string::npos);
    EXPECT_EQ(page.find("src=\"score_histogram.png\""), std::string::npos) << "pictures are embedded, not linked";
    std::size_t embedded = 0;
    for (auto at = page.find("data:image/png;base64,"); at != std::string::npos;
         at = page.find("data:image/png;base64,", at + 1))
        ++embedded;
    EXPECT_EQ(embedded, 2u);
    EXPECT_EQ(page.find("src=\"http"), std::string::npos) << "nothing fetched from elsewhere";
    EXPECT_EQ(page.find("href=\"http"), std::string::npos) << "nothing fetched from elsewhere";
    EXPECT_NE(page.find("43%</b> lost <code>VecAdd.PartialLastBlock</code>: the last, partial block did not run"),
              std::string::npos)
        << "3 of the 7 graded students";
    EXPECT_NE(page.find("2 submissions did not compile"), std::string::npos);
    EXPECT_NE(page.find("the worker on node3 stopped answering"), std::string::npos);
    EXPECT_NE(page.find("NVIDIA H100 (sm_90)"), std::string::npos);
    EXPECT_EQ(page.find("<script>"), std::string::npos) << "a student's name is escaped";
    EXPECT_NE(page.find("&lt;script&gt;"), std::string::npos);
    EXPECT_TRUE(fs::exists(out / "report/class_report.json"));
    EXPECT_EQ(page.find("NOT SANDBOXED"), std::string::npos) << "a sandboxed class gets no warning";

    results[3].sandboxed = false;
    write_class_report(class_report_data("lesson01", "vector addition", results), out / "open", script());
    const std::string open_page = batch_test::read(out / "open/class_report.html");
    EXPECT_NE(open_page.find("NOT SANDBOXED:</b> 1 submission was graded without the sandbox"), std::string::npos)
        << open_page;
}

// Started while the class is graded, the script waits with matplotlib
// imported and then draws what it would have drawn started at the end.
TEST(BatchClassReport, StartedAheadItDrawsThePageItWouldHaveDrawnStartedAtTheEnd) {
    course::temp_dir out("batch-class-report");
    const json data = class_report_data("lesson01", "vector addition", a_class());
    try {
        write_class_report(data, out / "at_the_end", script());
    } catch (const user_error& e) {
        if (std::string(e.what()).find("no Python with matplotlib") != std::string::npos)
            GTEST_SKIP() << "this machine has no Python with matplotlib, so the page cannot be drawn: " << e.what();
        throw;
    }
    class_report_ahead ahead(script());
    write_class_report(data, out / "ahead", script(), &ahead);
    const std::string page = batch_test::read(out / "ahead/class_report.html");
    EXPECT_NE(page.find("lesson01 · vector addition: class report"), std::string::npos) << page;
    EXPECT_EQ(page, batch_test::read(out / "at_the_end/class_report.html"));
    EXPECT_EQ(batch_test::read(out / "ahead/score_histogram.png"), batch_test::read(out / "at_the_end/score_histogram.png"));
}

// A batch that stops on an error before its report lets the waiting script
// go, and waits for it to end: here a script that writes down what it was
// sent, after class_report.py's way of reading it.
TEST(BatchClassReport, StartedAheadAndNeverAskedToDrawTheScriptIsToldSoAndEnds) {
    course::temp_dir scratch("batch-class-report");
    const fs::path fake = scratch / "fake_report.py", said = scratch / "said.txt";
    std::ofstream(fake) << fmt::format(R"(import argparse, os
parser = argparse.ArgumentParser()
parser.add_argument("--arguments-on-fd", type=int)
fd = parser.parse_args().arguments_on_fd
with os.fdopen(fd, "r") as sent:
    line = sent.readline()
open(r"{}", "w").write("sent: " + line if line else "nothing to draw")
)",
                                       said.string());
    try {
        find_python(scratch / "check.log");
    } catch (const user_error& e) {
        GTEST_SKIP() << "no Python with matplotlib here, so none is started ahead: " << e.what();
    }
    { class_report_ahead ahead(fake); }
    ASSERT_TRUE(fs::exists(said)) << "the script ended before the batch went on";
    EXPECT_EQ(batch_test::read(said), "nothing to draw");
}

TEST(BatchClassReport, AMissingScriptSaysHowToRestoreIt) {
    course::temp_dir out("batch-class-report");
    try {
        write_class_report(class_report_data("lesson01", "t", a_class()), out.path(), out / "no_such_script.py");
        FAIL() << "expected an error";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("is missing from the course"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace grader
