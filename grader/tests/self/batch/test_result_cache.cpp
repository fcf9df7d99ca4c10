// The batch's result cache (result_cache.hpp): the content key, the
// per-student results folder, and resuming after an interruption; and
// reading back the JSON report it keeps (report_json.hpp).
#include <gtest/gtest.h>

#include <regex>

#include "batch/result_cache.hpp"
#include "batch_test_files.hpp"
#include "checkout/context.hpp"
#include "course/temp_dir.hpp"
#include "report/formats.hpp"
#include "report/report_json.hpp"
#include "system/sha256.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;
using batch_test::read;

lesson_report graded_report(int passed_points) {
    lesson_report r;
    r.lesson_id = "lesson01";
    r.title = "vector addition";
    r.variant = "exercise";
    r.device = "NVIDIA H200 (sm_90)";
    r.seed = 42;
    graded_test small{"VecAdd.SingleElement", "single element", 1};
    small.status = passed_points >= 1 ? test_status::passed : test_status::failed;
    graded_test partial{"VecAdd.PartialLastBlock", "129 elements, 128 threads per block", 2};
    partial.status = passed_points >= 3 ? test_status::passed : test_status::failed;
    if (partial.status == test_status::failed)
        partial.messages = {"element 128: expected 1.2431, got NaN (never written)\nthe last, partial block did not run"};
    partial.ms = 12.5;
    r.tests = {small, partial};
    r.notes = {"missing vecadd.cu: graded as the untouched skeleton would be"};
    return r;
}

batch_result graded(const std::string& student, int passed_points = 1) {
    batch_result r;
    r.student = student;
    r.email = student + "@example.edu";
    r.report = graded_report(passed_points);
    r.worker = "node12 GPU 3";
    r.problems = {"ignored 1 file that is not part of lesson01: notes.txt"};
    return r;
}

#define SKIP_WITHOUT_SHA256() \
    if (!sha256_available()) GTEST_SKIP() << "built without libssl-dev: no SHA-256 for the result cache"

TEST(BatchResultCache, Sha256MatchesTheStandardsTestVectors) {
    SKIP_WITHOUT_SHA256();
    // FIPS 180-2, appendix B.1 and B.2.
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256().update("ab").update("c").hex_digest(), sha256_hex("abc")) << "fed in pieces, the same";
}

TEST(BatchResultCache, TheKeyChangesWithTheLessonTheCourseAndEveryByteOfTheFiles) {
    SKIP_WITHOUT_SHA256();
    const std::map<std::string, std::string> files = {{"vecadd.cu", "// v1"}, {"other.cu", "// o"}};
    const std::string key = content_key("lesson01", "abc123", files);
    EXPECT_EQ(key.size(), 64u);
    EXPECT_EQ(key, content_key("lesson01", "abc123", files)) << "the same submission, the same key";
    EXPECT_NE(key, content_key("lesson02", "abc123", files));
    EXPECT_NE(key, content_key("lesson01", "abc124", files));
    auto edited = files;
    edited["vecadd.cu"] = "// v2";
    EXPECT_NE(key, content_key("lesson01", "abc123", edited));
    auto renamed = files;
    renamed.erase("other.cu");
    renamed["othe.cu"] = "// o";
    EXPECT_NE(key, content_key("lesson01", "abc123", renamed));
    EXPECT_NE(key, content_key("lesson01", "abc123", {{"vecadd.cu", "// v1"}})) << "a file fewer";
}

TEST(BatchResultCache, TheKeyCannotBeFooledBySlidingBytesBetweenFields) {
    SKIP_WITHOUT_SHA256();
    EXPECT_NE(content_key("lesson01", "c", {{"ab", "c"}}), content_key("lesson01", "c", {{"a", "bc"}}));
    EXPECT_NE(content_key("lesson0", "1c", {}), content_key("lesson01", "c", {}));
}

TEST(BatchResultCache, FolderNamesAreSafeReadableAndNeverShared) {
    EXPECT_EQ(folder_name_for("ada"), "ada");
    EXPECT_EQ(folder_name_for("ada.lovelace@example.edu"), "ada.lovelace@example.edu");
    const std::string spaced = folder_name_for("Jane Doe");
    EXPECT_EQ(spaced.rfind("Jane_Doe-", 0), 0u) << spaced;
    EXPECT_NE(spaced, folder_name_for("Jane_Doe")) << "two students never share a folder";
    for (const std::string& hostile : std::vector<std::string>{"..", ".", "../../etc", "a/b", "", std::string(300, 'x'), "José"}) {
        const std::string name = folder_name_for(hostile);
        EXPECT_FALSE(name.empty());
        EXPECT_EQ(name.find('/'), std::string::npos) << name;
        EXPECT_NE(name.front(), '.') << name;
        EXPECT_LE(name.size(), 100u) << name;
    }
}

// The folder's tests file results under made-up keys: what a key is made
// of is the tests above, and needs no SHA-256 here.
TEST(BatchResultCache, AStoredResultIsDoneForItsKeyOnly) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    const std::string key = "5e1f";
    EXPECT_FALSE(cache.is_done("Ada Lovelace", key)) << "nothing stored yet";
    cache.store(graded("Ada Lovelace"), key);
    EXPECT_TRUE(cache.is_done("Ada Lovelace", key));
    EXPECT_FALSE(cache.is_done("Ada Lovelace", "5e1f0")) << "the submission changed";
    EXPECT_FALSE(cache.is_done("Alan Turing", key));

    const fs::path folder = cache.folder_of("Ada Lovelace");
    EXPECT_EQ(folder.parent_path(), dir / "results");
    EXPECT_NE(read(folder / "report.txt").find("score 1/3"), std::string::npos) << read(folder / "report.txt");
    EXPECT_EQ(read(folder / "report.txt").find("\x1b["), std::string::npos) << "a file gets no colour";
    EXPECT_EQ(read(folder / "report.json"), format_json(graded_report(1)));
    EXPECT_EQ(read(folder / "results.json"), format_gradescope(graded_report(1)));
    EXPECT_EQ(read(folder / "key"), key + "\n");
    for (const auto& e : fs::directory_iterator(folder))
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "left behind: " << e.path();
}

TEST(BatchResultCache, WhatWasStoredLoadsBackWhole) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    batch_result original = graded("Grace Hopper", 3);
    original.sid = "1906";
    cache.store(original, "k1");
    const auto loaded = cache.load("Grace Hopper");
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->student, "Grace Hopper");
    EXPECT_EQ(loaded->email, "Grace Hopper@example.edu");
    EXPECT_EQ(loaded->sid, "1906");
    EXPECT_EQ(loaded->worker, "node12 GPU 3");
    EXPECT_EQ(loaded->problems, original.problems);
    EXPECT_EQ(loaded->state(), batch_result::outcome::graded);
    ASSERT_TRUE(loaded->report);
    EXPECT_EQ(format_json(*loaded->report), format_json(*original.report)) << "the report round-trips exactly";
    EXPECT_FALSE(cache.load("Nobody"));
}

TEST(BatchResultCache, ABuildFailureIsAGradeTheStudentCanRead) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    batch_result r = graded("Charles Babbage", 0);
    r.build_failed = true;
    r.build_error = "\nlesson01 does not compile, so no tests ran.\n\n  vecadd.cu:12:5: error: expected ';'\n";
    cache.store(r, "k");
    EXPECT_TRUE(cache.is_done("Charles Babbage", "k")) << "a compile error is the student's: no need to retry";
    const std::string text = read(cache.folder_of("Charles Babbage") / "report.txt");
    EXPECT_NE(text.find("vecadd.cu:12:5: error: expected ';'"), std::string::npos) << text;
    EXPECT_EQ(cache.load("Charles Babbage")->state(), batch_result::outcome::build_failed);
}

TEST(BatchResultCache, ANotGradedResultIsKeptWithoutAKeySoTheNextRunRetriesIt) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    cache.store(graded("Alan Turing"), "old");  // an earlier run graded other content
    batch_result lost;
    lost.student = "Alan Turing";
    lost.not_graded = "the worker on node12 stopped answering";
    cache.store(lost, "new");
    EXPECT_FALSE(cache.is_done("Alan Turing", "new"));
    EXPECT_FALSE(cache.is_done("Alan Turing", "old")) << "the old key is gone with the old results";
    const fs::path folder = cache.folder_of("Alan Turing");
    EXPECT_FALSE(fs::exists(folder / "report.json")) << "no stale report beside a new outcome";
    EXPECT_NE(read(folder / "report.txt").find("not graded: the worker on node12 stopped answering"),
              std::string::npos);
    EXPECT_NE(read(folder / "report.txt").find("not a score of zero"), std::string::npos);
    const auto loaded = cache.load("Alan Turing");
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->state(), batch_result::outcome::not_graded);
    EXPECT_EQ(loaded->not_graded_reason(), "the worker on node12 stopped answering");
}

// Graded where there is no GPU: the host tests ran, the GPU tests were
// skipped. No score is exported (no results.json for Gradescope, no
// report.json with a score), only why; and the next run grades it again.
TEST(BatchResultCache, ANoGpuResultExportsNoScore) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    cache.store(graded("Ada Lovelace", 3), "old");  // an earlier run's results must not linger either
    batch_result r = graded("Ada Lovelace", 3);
    r.report->no_gpu_reason = "cudaGetDeviceCount returned cudaErrorNoDevice";
    r.report->tests[1].status = test_status::skipped;
    graded_test cpu{"VecAddCpu.Empty", "CPU: empty input writes nothing", 1};
    cpu.gpu = false;
    cpu.status = test_status::passed;
    r.report->tests.push_back(cpu);
    cache.store(r, "new");
    const fs::path folder = cache.folder_of("Ada Lovelace");
    EXPECT_FALSE(cache.is_done("Ada Lovelace", "new")) << "its GPU tests are still owed";
    EXPECT_FALSE(fs::exists(folder / "results.json")) << "Gradescope's format would carry the CPU tests' score";
    EXPECT_FALSE(fs::exists(folder / "report.json")) << "so would the JSON report";
    const std::string text = read(folder / "report.txt");
    EXPECT_NE(text.find("not graded: its GPU tests could not run here (no GPU: cudaGetDeviceCount returned "
                        "cudaErrorNoDevice): grade the class on a GPU machine"),
              std::string::npos)
        << text;
    EXPECT_FALSE(std::regex_search(text, std::regex(R"(score \d+/\d+)"))) << "no score in words either:\n" << text;
    const auto loaded = cache.load("Ada Lovelace");
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->state(), batch_result::outcome::not_graded);
}

TEST(BatchResultCache, AResultGradedWithoutTheSandboxSaysSoAndIsGradedAgain) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    batch_result r = graded("Grace Hopper", 3);
    r.sandboxed = false;
    cache.store(r, "k");
    EXPECT_FALSE(cache.is_done("Grace Hopper", "k")) << "a run where bubblewrap runs grades it again, sandboxed";
    const auto loaded = cache.load("Grace Hopper");
    ASSERT_TRUE(loaded);
    EXPECT_FALSE(loaded->sandboxed);
    EXPECT_EQ(loaded->state(), batch_result::outcome::graded) << "a grade all the same, marked";

    cache.store(graded("Grace Hopper", 3), "k");
    EXPECT_TRUE(cache.load("Grace Hopper")->sandboxed);
    EXPECT_TRUE(cache.is_done("Grace Hopper", "k"));
}
TEST(BatchResultCache, AnInterruptedWriteLeavesTheStudentToBeGradedAgain) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    cache.store(graded("Ada Lovelace"), "k");
    // What a batch killed half-way through store() leaves: the key already
    // removed, a temporary file never renamed.
    const fs::path folder = cache.folder_of("Ada Lovelace");
    fs::remove(folder / "key");
    batch_test::write(folder / ".report.json.tmp-abc123", "{\"half\": ");
    EXPECT_FALSE(cache.is_done("Ada Lovelace", "k"));
    cache.store(graded("Ada Lovelace", 3), "k");  // the rerun
    EXPECT_TRUE(cache.is_done("Ada Lovelace", "k"));
    EXPECT_NE(read(folder / "report.txt").find("score 3/3"), std::string::npos);
}

TEST(BatchResultCache, ADamagedFolderIsGradedAgainNotTrusted) {
    course::temp_dir dir("batch-cache");
    const result_cache cache(dir / "results");
    cache.store(graded("Ada Lovelace"), "k");
    batch_test::write(cache.folder_of("Ada Lovelace") / "report.json", "{ not json");
    EXPECT_FALSE(cache.load("Ada Lovelace"));
    fs::remove(cache.folder_of("Ada Lovelace") / "results.json");
    EXPECT_FALSE(cache.is_done("Ada Lovelace", "k")) << "a file is missing";
}

TEST(BatchResultCache, AnUnwritableResultsFolderSaysSo) {
    course::temp_dir dir("batch-cache");
    batch_test::write(dir / "results", "a file where the folder should be");
    const result_cache cache(dir / "results");
    try {
        cache.store(graded("Ada Lovelace"), "k");
        FAIL() << "expected an error";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("Check that its folder is writable"), std::string::npos) << e.what();
    }
}

TEST(BatchResultCache, WithoutLibcryptoTheKeySaysWhichPackageToInstall) {
    std::string why;
    if (sha256_available(&why)) GTEST_SKIP() << "built with libcrypto: the message for its absence cannot show here";
    try {
        content_key("lesson01", "abc", {});
        FAIL() << "expected an error";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("libssl-dev"), std::string::npos) << e.what();
    }
}

TEST(BatchResultCache, ReportJsonReadsBackEveryStatus) {
    lesson_report r = graded_report(1);
    r.no_gpu_reason = "";
    for (test_status s : {test_status::passed, test_status::failed, test_status::skipped, test_status::crashed,
                          test_status::timed_out, test_status::missing, test_status::not_run}) {
        graded_test t{std::string("T.") + to_string(s), "a test", 1};
        t.status = s;
        t.performance = s == test_status::not_run;
        t.gpu = s != test_status::missing;
        r.tests.push_back(t);
    }
    EXPECT_EQ(format_json(report_from_json(format_json(r))), format_json(r));
    EXPECT_THROW(report_from_json("{\"lesson\": \"x\"}"), std::runtime_error);
    EXPECT_THROW(report_from_json("[1, 2]"), std::runtime_error);
}

}  // namespace
}  // namespace grader
