// The rules `grader verify` holds each variant to, on synthetic reports.
#include <gtest/gtest.h>

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
