#include <gtest/gtest.h>

#include "checkout/build.hpp"

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

TEST(BuildDigest, ACMakeErrorIsNotCalledACompilerError) {
    const std::string log =
        "[0/1] Re-running CMake...\n"
        "CMake Error at cmake/CourseLesson.cmake:57 (add_library):\n"
        "  Cannot find source file:\n"
        "\n"
        "    /src/grader/bench/06_kernels/bench_kernels.cpp\n"
        "Call Stack (most recent call first):\n"
        "  lessons/06_kernels/CMakeLists.txt:14 (course_add_lesson)\n"
        "ninja: error: rebuilding 'build.ninja': subcommand failed\n";
    const auto digest = grader::first_error(log, "/src");
    EXPECT_NE(digest.find("CMake could not regenerate the build files"), std::string::npos) << digest;
    EXPECT_NE(digest.find("Cannot find source file"), std::string::npos) << digest;
    EXPECT_NE(digest.find("bench_kernels.cpp"), std::string::npos) << digest;
    EXPECT_EQ(digest.find("Call Stack"), std::string::npos) << digest;
}
