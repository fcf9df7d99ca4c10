#include <gtest/gtest.h>

#include "build.hpp"

TEST(BuildDigest, FindsTheFirstNvccError) {
    const std::string log =
        "[1/3] Building CUDA object ...\n"
        "FAILED: exercises/vecadd.cu.o\n"
        "/src/exercises/01_vecadd/vecadd.cu(17): error: identifier \"idx\" is undefined\n"
        "/src/exercises/01_vecadd/vecadd.cu(18): error: expected a \";\"\n";
    const auto digest = grader::first_error(log, "/src");
    EXPECT_EQ(digest, "exercises/01_vecadd/vecadd.cu:17: error: identifier \"idx\" is undefined");
}

TEST(BuildDigest, FindsAGccError) {
    const std::string log = "foo.cpp:12:5: error: 'x' was not declared in this scope\nmore\n";
    EXPECT_EQ(grader::first_error(log, "/src"), "foo.cpp:12: error: 'x' was not declared in this scope");
}

TEST(BuildDigest, FallsBackToAnyErrorLine) {
    EXPECT_EQ(grader::first_error("ld: undefined reference to `lesson01::vecadd'\n", "/src"),
              "ld: undefined reference to `lesson01::vecadd'");
    EXPECT_EQ(grader::first_error("nothing useful\n", "/src"), "the build failed; see the log for details");
}
