// The Python that draws: a search started ahead (a batch's, while it grades)
// answers as the search made when the picture is drawn would.
#include <gtest/gtest.h>

#include <string>

#include "course/temp_dir.hpp"
#include "system/python.hpp"
#include "system/user_error.hpp"

namespace {

// The answer, or the error's words.
std::string answer_now() {
    course::temp_dir scratch("python-test");
    try {
        return grader::find_python(scratch / "check.log");
    } catch (const grader::user_error& e) {
        return std::string("error: ") + e.what();
    }
}

std::string answer_ahead(const grader::python_search_ahead& ahead) {
    try {
        return ahead.get();
    } catch (const grader::user_error& e) {
        return std::string("error: ") + e.what();
    }
}

TEST(PythonSearch, AheadAnswersAsTheSearchMadeThen) {
    const grader::python_search_ahead ahead;
    EXPECT_EQ(answer_ahead(ahead), answer_now());
}

}  // namespace
