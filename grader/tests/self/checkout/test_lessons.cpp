#include <gtest/gtest.h>

#include "checkout/manifest.hpp"

namespace {
const char* manifest_json = R"({
  "source_dir": "/src", "build_dir": "/src/build", "cmake": "/usr/bin/cmake",
  "cuda_compiler": "/usr/local/cuda/bin/nvcc", "cuda_compiler_version": "13.0.88",
  "cuda_architectures": "90", "mutants_built": false,
  "lessons": [
    {"id": "lesson05", "number": 5, "dir": "05_streams", "slug": "streams", "title": "streams and events",
     "aliases": ["streams"], "lesson_dir": "/src/lessons/05_streams", "sources": ["streams.cu"],
     "variants": {"exercise": {"source_dir": "/src/exercises/05_streams", "tests_target": "lesson05_exercise_tests",
                               "tests": "/src/build/bin/lesson05_exercise_tests"}}},
    {"id": "lesson01", "number": 1, "dir": "01_vecadd", "slug": "vecadd", "title": "vector addition",
     "aliases": ["vecadd", "vector_add"], "lesson_dir": "/src/lessons/01_vecadd", "sources": ["vecadd.cu"],
     "variants": {"exercise": {"source_dir": "/src/exercises/01_vecadd", "tests_target": "lesson01_exercise_tests",
                               "tests": "/src/build/bin/lesson01_exercise_tests"},
                  "mutant_hang": {"source_dir": "/src/build/mutants/01_vecadd/hang", "tests_target": "t",
                                  "tests": "/x"}}}
  ]})";
}  // namespace

TEST(Lessons, EveryWayOfNamingALesson) {
    const auto m = grader::parse_manifest(manifest_json);
    for (const char* name : {"lesson05", "5", "05", "streams", "05_streams", "LESSON05", "lesson5"}) {
        const auto* lesson = m.find(name);
        ASSERT_NE(lesson, nullptr) << name;
        EXPECT_EQ(lesson->id, "lesson05") << name;
    }
    EXPECT_EQ(m.find("vector_add")->id, "lesson01");
}

TEST(Lessons, UnknownNamesFindNothing) {
    const auto m = grader::parse_manifest(manifest_json);
    for (const char* name : {"lesson9", "9", "matmul", "", "lesson", "vec"}) EXPECT_EQ(m.find(name), nullptr) << name;
}

TEST(Lessons, SortedByNumberAndListedForErrors) {
    const auto m = grader::parse_manifest(manifest_json);
    EXPECT_EQ(m.lessons.front().id, "lesson01");
    EXPECT_EQ(m.valid_names(), "lesson01 (vecadd), lesson05 (streams)");
}

TEST(Lessons, MutantsAreVariants) {
    const auto m = grader::parse_manifest(manifest_json);
    const auto* lesson = m.find("1");
    EXPECT_NE(lesson->variant("exercise"), nullptr);
    EXPECT_EQ(lesson->variant("solution"), nullptr);
    EXPECT_EQ(lesson->mutants(), std::vector<std::string>{"hang"});
}
