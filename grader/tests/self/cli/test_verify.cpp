// The rules `grader verify` holds each variant to, on synthetic reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/verify_checks.hpp"

namespace {
using grader::test_status;

grader::graded_test test(const std::string& id, test_status status, bool performance = false,
                         std::vector<std::string> messages = {}) {
    grader::graded_test t;
    t.id = id;
    t.points = 1;
    t.performance = performance;
    t.status = status;
    t.messages = std::move(messages);
    return t;
}

grader::lesson_report report(std::vector<grader::graded_test> tests) {
    grader::lesson_report r;
    r.lesson_id = "lesson01";
    r.tests = std::move(tests);
    return r;
}
}  // namespace

TEST(Verify, SolutionNeedsEveryTest) {
    EXPECT_TRUE(grader::check_full_marks(report({test("A.x", test_status::passed)})).empty());
    const auto problems = grader::check_full_marks(
        report({test("A.x", test_status::passed), test("A.y", test_status::timed_out, false, {"stopped"})}));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("A.y is timed_out"), std::string::npos) << problems[0];
}

TEST(Verify, ASkippedTestVerifiesNothing) {
    const auto problems = grader::check_full_marks(report({test("A.x", test_status::skipped, false, {"no GPU"})}));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("skipped"), std::string::npos);
}

TEST(Verify, SkeletonMustLoseEveryCorrectnessTestWithAReason) {
    EXPECT_TRUE(grader::check_loses_all_correctness(
                    report({test("A.x", test_status::failed, false, {"not implemented yet"}),
                            test("A.speed", test_status::not_run, true)}))
                    .empty());
    EXPECT_EQ(grader::check_loses_all_correctness(report({test("A.x", test_status::passed)})).size(), 1u);
    EXPECT_EQ(grader::check_loses_all_correctness(report({test("A.x", test_status::failed)})).size(), 1u)
        << "a failure must say why";
}

TEST(Verify, MutantCaughtWhereExpectedWithItsDiagnosis) {
    const auto e = grader::parse_expectation(R"({
        "mistake": "grid rounded down",
        "must_fail": ["A.partial"], "must_pass": ["A.exact"],
        "status": {"A.hang": "timed_out"},
        "message_contains": {"A.partial": "last, partial block"}})");
    EXPECT_EQ(e.mistake, "grid rounded down");
    const auto good = report({test("A.partial", test_status::failed, false, {"the last, partial block did not run"}),
                              test("A.exact", test_status::passed), test("A.hang", test_status::timed_out)});
    EXPECT_TRUE(grader::check_expectation(good, e).empty());

    const auto missed = report({test("A.partial", test_status::passed), test("A.exact", test_status::failed, false, {"x"}),
                                test("A.hang", test_status::crashed)});
    const auto problems = grader::check_expectation(missed, e);
    ASSERT_EQ(problems.size(), 4u);
    EXPECT_NE(problems[0].find("A.partial passed but should catch: grid rounded down"), std::string::npos);
    EXPECT_NE(problems[1].find("A.exact is failed"), std::string::npos);
    EXPECT_NE(problems[2].find("expected timed_out"), std::string::npos);
    EXPECT_NE(problems[3].find("does not say \"last, partial block\""), std::string::npos);
}

// A cheat caught two right ways, timing deciding which (its deferred
// kernel ran after the output was read, or before): either diagnosis does,
// and a report with neither names both.
TEST(Verify, ADiagnosisCanBeOneOfAFew) {
    const auto e = grader::parse_expectation(R"({
        "mistake": "work deferred past the call", "must_fail": ["A.speed"],
        "message_contains": {"A.speed": ["the output was wrong", "a kernel ran outside the timed calls"]}})");
    for (const std::string said : {"in 3 of 20 timed calls of f the output was wrong",
                                   "a kernel ran outside the timed calls of f: k was launched while ..."})
        EXPECT_TRUE(grader::check_expectation(report({test("A.speed", test_status::failed, true, {said})}), e).empty())
            << said;
    const auto neither =
        grader::check_expectation(report({test("A.speed", test_status::failed, true, {"too slow"})}), e);
    ASSERT_EQ(neither.size(), 1u);
    EXPECT_NE(neither[0].find("does not say \"the output was wrong\" or \"a kernel ran outside the timed calls\"; "
                              "it says: too slow"),
              std::string::npos)
        << neither[0];
    // Anything else is refused, naming the test and what is allowed.
    for (const char* bad : {R"({"message_contains": {"A.speed": 3}})", R"({"message_contains": {"A.speed": []}})",
                            R"({"message_contains": {"A.speed": ["a", 1]}})"}) {
        try {
            grader::parse_expectation(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const std::invalid_argument& error) {
            EXPECT_NE(std::string(error.what()).find("\"A.speed\": ...} must be a text, or a list of texts"),
                      std::string::npos)
                << error.what();
        }
    }
}

TEST(Verify, ATextbookFormNeedsFullMarksAndItsSpeedTests) {
    const auto form = grader::parse_textbook_form(R"({
        "technique": "16 x 16 tiles in shared memory, one element of C per thread",
        "speed_tests": ["A.speed"]})");
    EXPECT_EQ(form.technique, "16 x 16 tiles in shared memory, one element of C per thread");
    EXPECT_TRUE(grader::check_textbook_form(
                    report({test("A.x", test_status::passed), test("A.speed", test_status::passed, true)}), form)
                    .empty());

    const auto slow = grader::check_textbook_form(
        report({test("A.x", test_status::passed), test("A.speed", test_status::failed, true, {"0.61x; 0.8x is needed"})}),
        form);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_NE(slow[0].find("A.speed is failed: 0.61x; 0.8x is needed"), std::string::npos) << slow[0];

    // A speed test renamed in the lesson must not leave the form answering nothing.
    const auto renamed = grader::check_textbook_form(report({test("A.x", test_status::passed)}), form);
    ASSERT_EQ(renamed.size(), 1u);
    EXPECT_NE(renamed[0].find("A.speed is not among the lesson's tests"), std::string::npos) << renamed[0];
}

TEST(Verify, AMistakeAnOlderGpuCannotShowIsPassedOverSayingWhy) {
    const auto e = grader::parse_expectation(R"({
      "mistake": "TF32 on by default", "must_fail": ["Cublas.Tf32OffByDefault"],
      "needs": {"compute_capability": "8.0", "why": "TF32 exists from Ampere on"}})");
    const auto on_t4 = grader::unmet_need(e, 7, 5);
    ASSERT_TRUE(on_t4.has_value());
    EXPECT_EQ(*on_t4, "cannot show on this GPU (sm_75): it needs sm_80 or newer, TF32 exists from Ampere on");
    EXPECT_FALSE(grader::unmet_need(e, 8, 0).has_value());
    EXPECT_FALSE(grader::unmet_need(e, 9, 0).has_value());
    // Without "needs", every GPU can show it.
    EXPECT_FALSE(grader::unmet_need(grader::parse_expectation(R"({"mistake": "m"})"), 7, 5).has_value());
    EXPECT_THROW(grader::parse_expectation(R"({"needs": {"compute_capability": "Ampere"}})"), std::invalid_argument);
}

// Every known-wrong version's and cheat's expect.json reads as one, here
// with no GPU: a slip in one would otherwise show only in a GPU check.
TEST(Verify, EveryExpectationInTheCourseReads) {
    const std::filesystem::path grader_dir = std::filesystem::path(GRADER_FIXTURES).parent_path().parent_path();
    int read = 0;
    for (const char* kind : {"mutants", "cheats"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(grader_dir / kind)) {
            if (entry.path().filename() != "expect.json") continue;
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            try {
                const auto e = grader::parse_expectation(text.str());
                EXPECT_FALSE(e.mistake.empty()) << entry.path() << " does not say what the mistake is";
            } catch (const std::exception& error) {
                ADD_FAILURE() << entry.path() << ": " << error.what();
            }
            ++read;
        }
    }
    EXPECT_GT(read, 50) << "the known-wrong versions and cheats were not found under " << grader_dir;
}
