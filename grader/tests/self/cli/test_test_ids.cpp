// The ids `grader run --test` takes (cli/test_ids.hpp): an id that names no
// test is a usage error that names the close ones, and `grader list LESSON`
// shows them all.
#include <gtest/gtest.h>

#include "cli/test_ids.hpp"
#include "system/user_error.hpp"

namespace {

std::vector<grader::listed_test> lesson01_tests() {
    grader::listed_test empty{"VecAdd.EmptyInput", "empty input launches nothing", "correctness", 1};
    grader::listed_test large{"VecAdd.Large", "2^24 + 11 elements", "correctness", 2};
    grader::listed_test bandwidth{"VecAdd.Bandwidth", "bandwidth >= 60% of this GPU's copy bandwidth", "performance", 2};
    grader::listed_test cpu_empty{"VecAddCpuHost.Empty", "CPU: empty input writes nothing", "correctness", 1};
    cpu_empty.gpu = false;
    return {empty, large, bandwidth, cpu_empty};
}

std::string usage_error_of(const std::vector<std::string>& ids) {
    try {
        grader::check_test_ids("lesson01", lesson01_tests(), ids);
    } catch (const grader::user_error& e) {
        EXPECT_EQ(e.code, grader::usage_error);
        return e.what();
    }
    return "";
}

}  // namespace

TEST(TestIds, KnownIdsPass) {
    EXPECT_NO_THROW(grader::check_test_ids("lesson01", lesson01_tests(), {}));
    EXPECT_NO_THROW(grader::check_test_ids("lesson01", lesson01_tests(), {"VecAdd.Large", "VecAddCpuHost.Empty"}));
}

TEST(TestIds, AnUnknownIdIsAUsageErrorNamingTheCloseOne) {
    EXPECT_EQ(usage_error_of({"VecAddCpuHost.Emtpy"}),
              "no test VecAddCpuHost.Emtpy in lesson01; did you mean VecAddCpuHost.Empty?\n"
              "`grader list lesson01` shows its 4 test ids, which --test takes.");
}

TEST(TestIds, EachUnknownIdIsNamedTheKnownOnesAreNot) {
    const std::string message = usage_error_of({"VecAdd.Large", "Bandwidth", "Matmul.Tiled"});
    EXPECT_NE(message.find("no test Bandwidth in lesson01; did you mean VecAdd.Bandwidth?\n"), std::string::npos)
        << message;
    EXPECT_NE(message.find("no test Matmul.Tiled in lesson01\n"), std::string::npos) << message;
    EXPECT_EQ(message.find("no test VecAdd.Large"), std::string::npos) << message;
}

TEST(TestIds, IdsAreCaseSensitiveAndTheRightCaseIsSuggested) {
    EXPECT_NE(usage_error_of({"vecadd.large"}).find("did you mean VecAdd.Large?"), std::string::npos);
}

TEST(TestIds, TheListShowsEveryIdWithPointsAndTitle) {
    grader::lesson_info lesson;
    lesson.id = "lesson01";
    lesson.title = "vector addition";
    const std::string text = grader::format_test_list(lesson, lesson01_tests());
    EXPECT_NE(text.find("lesson01 (vector addition): 4 graded tests, 6 points\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n  VecAdd.Large              2  2^24 + 11 elements\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n  VecAdd.Bandwidth          2  bandwidth >= 60% of this GPU's copy bandwidth (speed)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\n  VecAddCpuHost.Empty       1  CPU: empty input writes nothing (no GPU needed)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("grade one with: grader run lesson01 --test VecAdd.EmptyInput\n"), std::string::npos) << text;
}
