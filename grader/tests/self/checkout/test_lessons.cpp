#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "checkout/context.hpp"
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

// An unknown lesson is a usage error (exit 3) that names the lesson meant,
// where one comes close, before the list of them all.
TEST(Lessons, AnUnknownLessonIsAUsageErrorThatSuggestsTheCloseOne) {
    const auto m = grader::parse_manifest(manifest_json);
    auto message_for = [&](const std::string& name) -> std::string {
        try {
            grader::find_lesson(m, name);
        } catch (const grader::user_error& e) {
            EXPECT_EQ(e.code, grader::usage_error) << name;
            return e.what();
        }
        ADD_FAILURE() << name << " was found";
        return "";
    };
    EXPECT_EQ(message_for("vecad"),
              "unknown lesson 'vecad'; did you mean lesson01 (vecadd)? Valid lessons: lesson01 (vecadd), lesson05 "
              "(streams).\nA lesson can be named lesson01, 1 or vecadd.");
    EXPECT_NE(message_for("stream").find("did you mean lesson05 (streams)?"), std::string::npos);
    EXPECT_NE(message_for("lesson50").find("did you mean lesson05 (streams)"), std::string::npos);  // first
    EXPECT_EQ(message_for("nosuchlesson").rfind("unknown lesson 'nosuchlesson'. Valid lessons: lesson01 (vecadd)", 0), 0u);
    EXPECT_EQ(message_for("matmul").find("did you mean"), std::string::npos);
}

TEST(CloseMatches, TyposPrefixesAndTestsWithoutTheirSuite) {
    const std::vector<std::string> tests = {"VecAdd.EmptyInput", "VecAdd.Large", "VecAdd.Bandwidth",
                                            "VecAddCpuHost.Empty", "VecAddCpuHost.UnevenSplit"};
    using grader::close_matches;
    using list = std::vector<std::string>;
    EXPECT_EQ(close_matches("VecAddCpuHost.Emtpy", tests), list{"VecAddCpuHost.Empty"});  // two letters swapped
    EXPECT_EQ(close_matches("vecadd.large", tests), list{"VecAdd.Large"});                // case
    EXPECT_EQ(close_matches("VecAdd.Lrge", tests), list{"VecAdd.Large"});                 // a letter dropped
    EXPECT_EQ(close_matches("Bandwidth", tests), list{"VecAdd.Bandwidth"});               // no suite
    EXPECT_EQ(close_matches("Empty", tests), (list{"VecAddCpuHost.Empty", "VecAdd.EmptyInput"}));
    EXPECT_EQ(close_matches("VecAddCpuHost", tests), (list{"VecAddCpuHost.Empty", "VecAddCpuHost.UnevenSplit"}));
    EXPECT_EQ(close_matches("VecAdd.Large", tests, 0), list{});
    EXPECT_TRUE(close_matches("Matmul.Tiled", tests).empty());
    EXPECT_TRUE(close_matches("", tests).empty());
    EXPECT_TRUE(close_matches("ab", {"ax"}).size() == 1);  // one typo in a short name
    EXPECT_TRUE(close_matches("ab", {"xy"}).empty());
}

TEST(CloseMatches, DidYouMeanReadsAsASentence) {
    EXPECT_EQ(grader::did_you_mean({}), "");
    EXPECT_EQ(grader::did_you_mean({"a"}), "did you mean a?");
    EXPECT_EQ(grader::did_you_mean({"a", "b"}), "did you mean a or b?");
    EXPECT_EQ(grader::did_you_mean({"a", "b", "c"}), "did you mean a, b or c?");
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

// The toolkit a sandbox keeps visible: the folder above nvcc's bin/, found
// through links (/usr/local/cuda -> cuda-13.0), as a toolkit unpacked under
// /tmp or a home folder (CUDA 12 from pip wheels, say) would be.
TEST(Lessons, TheToolkitIsTheFolderAboveNvccsBinThroughLinks) {
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() /
                          ("grader-toolkit-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::remove_all(root);
    fs::create_directories(root / "cuda-12.4" / "bin");
    std::ofstream(root / "cuda-12.4" / "bin" / "nvcc") << "#!/bin/sh\n";
    fs::create_directory_symlink(root / "cuda-12.4", root / "cuda");

    grader::manifest m = grader::parse_manifest(manifest_json);
    m.cuda_compiler = (root / "cuda" / "bin" / "nvcc").string();
    EXPECT_EQ(m.cuda_toolkit_dir(), fs::canonical(root / "cuda-12.4"));
    m.cuda_compiler = (root / "gone" / "bin" / "nvcc").string();
    EXPECT_TRUE(m.cuda_toolkit_dir().empty()) << "a compiler that is not there names no toolkit";
    m.cuda_compiler.clear();
    EXPECT_TRUE(m.cuda_toolkit_dir().empty());
    fs::remove_all(root);
}
