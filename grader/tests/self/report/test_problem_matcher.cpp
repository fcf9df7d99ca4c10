// The VS Code problem matcher (.vscode/tasks.json, task "grader: grade this
// lesson") against real grader output: each pattern is applied to every
// line, as VS Code does, and must find the problems a student would click
// on, with files that exist in the course, and nothing else.
//
// The outputs: a compile error (grader run lesson01 with a missing ';',
// fixtures/editor/compile_error.txt), compute-sanitizer findings from an
// H200 (fixtures/editor/sanitizer_finding*.txt) and the untouched lesson01's
// first report, formatted from its real JSON report.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "report/formats.hpp"
#include "report/report_json.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path fixtures = GRADER_FIXTURES;
const fs::path course_root = fixtures.parent_path().parent_path().parent_path();

std::string read(const fs::path& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct problem {
    std::string file, message, code;
    int line = 0;
    bool searched = false;  // the file is found by name under the include folders
};

struct matcher {
    std::regex pattern;
    json spec;
};

std::vector<matcher> grade_task_matchers() {
    const json tasks = json::parse(read(course_root / ".vscode" / "tasks.json"));
    for (const auto& task : tasks.at("tasks")) {
        if (task.at("label") != "grader: grade this lesson") continue;
        std::vector<matcher> out;
        for (const auto& m : task.at("problemMatcher"))
            out.push_back({std::regex(m.at("pattern").at("regexp").get<std::string>()), m});
        return out;
    }
    ADD_FAILURE() << "no task 'grader: grade this lesson' in .vscode/tasks.json";
    return {};
}

std::vector<problem> problems_in(const std::string& output) {
    std::vector<problem> found;
    const auto matchers = grade_task_matchers();
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        for (const auto& m : matchers) {
            std::smatch match;
            if (!std::regex_search(line, match, m.pattern)) continue;
            const json& p = m.spec.at("pattern");
            auto group = [&](const char* name) { return p.contains(name) ? match[p.at(name).get<int>()].str() : ""; };
            found.push_back({group("file"), group("message"), group("code"), std::stoi(group("line")),
                             m.spec.at("fileLocation").at(0) == "search"});
        }
    }
    return found;
}

// Where VS Code would open the problem: relative to the course, or found by
// name under exercises/ and lessons/.
std::vector<fs::path> opened(const problem& p) {
    if (!p.searched) return {course_root / p.file};
    std::vector<fs::path> hits;
    for (const char* dir : {"exercises", "lessons"})
        for (const auto& entry : fs::recursive_directory_iterator(course_root / dir))
            if (entry.path().filename() == p.file) hits.push_back(entry.path());
    return hits;
}

std::string line_of(const fs::path& file, int number) {
    std::ifstream in(file);
    std::string line;
    for (int i = 0; i < number && std::getline(in, line); ++i) {
    }
    return line;
}

TEST(ProblemMatcher, ACompileErrorIsOneProblemOnItsLine) {
    const auto found = problems_in(read(fixtures / "editor" / "compile_error.txt"));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].file, "exercises/01_vecadd/vecadd.cu");
    EXPECT_EQ(found[0].line, 17);
    EXPECT_EQ(found[0].message, "expected a \";\"");
    EXPECT_TRUE(fs::exists(opened(found[0]).at(0)));
}

TEST(ProblemMatcher, ASanitizerFindingPointsAtTheStudentsLine) {
    const auto found = problems_in(read(fixtures / "editor" / "sanitizer_finding.txt"));
    ASSERT_FALSE(found.empty());
    for (const auto& p : found) {
        EXPECT_EQ(p.file, "vecadd.cu");
        EXPECT_EQ(p.line, 28);
        EXPECT_EQ(p.code, "memcheck");
        EXPECT_EQ(p.message, "out-of-bounds read of 4 bytes to global memory in vecadd_kernel");
        // One file of that name where VS Code searches: the student's.
        EXPECT_EQ(opened(p), std::vector<fs::path>{course_root / "exercises" / "01_vecadd" / "vecadd.cu"});
    }
    // "threw test_vecadd.cpp:33: ..." is the test's own line, not a problem to open.
    for (const auto& p : found) EXPECT_EQ(p.file.find("test_"), std::string::npos);
}

TEST(ProblemMatcher, AFindingInALessonHeaderIsFoundUnderLessons) {
    const auto found = problems_in(read(fixtures / "editor" / "sanitizer_finding_in_a_header.txt"));
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].file, "device_helpers.cuh");
    EXPECT_EQ(found[0].line, 45);
    EXPECT_EQ(opened(found[0]), std::vector<fs::path>{course_root / "lessons" / "06_kernels" / "device_helpers.cuh"});
}

TEST(ProblemMatcher, APartNotStartedPointsAtItsTodo) {
    grader::lesson_report r = grader::report_from_json(read(fixtures / "first_report_lesson01.json"));
    const auto found = problems_in(grader::format_text(r, {false, true, false, 80}));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].message, "not started: lesson01::vecadd");
    EXPECT_EQ(found[0].file, "exercises/01_vecadd/vecadd.cu");
    EXPECT_NE(line_of(opened(found[0]).at(0), found[0].line).find("course::todo("), std::string::npos)
        << "line " << found[0].line << " of the skeleton is its course::todo";

    // A second part not started is listed under the first, and is a problem too.
    r.tests[3].messages = {"not implemented yet: lesson01::other in exercises/01_vecadd/vecadd.cu:12\nthis part..."};
    const auto two = problems_in(grader::format_text(r, {false, true, false, 80}));
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[1].message, "lesson01::other");
    EXPECT_EQ(two[1].line, 12);
}

}  // namespace
