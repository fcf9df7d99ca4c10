// `grader release --repo-url`: the clone address written into the edition
// (the Colab notebook's first code cell, the README's clone line), and what
// the release says without it; and what `grader run --solution` and its
// kin say in the student edition.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "checkout/context.hpp"
#include "checkout/release.hpp"
#include "system/user_error.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

const fs::path course_root = fs::path(GRADER_FIXTURES).parent_path().parent_path().parent_path();

std::string read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// A repository of one lesson with the course's own notebook and the student
// README, released with or without a URL.
struct ReleaseRepoUrl : ::testing::Test {
    void SetUp() override {
        root = fs::temp_directory_path() / ("release-url-" + std::to_string(::getpid()));
        fs::remove_all(root);
        repo = root / "repo";
        fs::create_directories(repo / "colab");
        fs::copy_file(course_root / "colab" / "course.ipynb", repo / "colab" / "course.ipynb");
        fs::create_directories(repo / "grader" / "release" / "student");
        fs::copy_file(course_root / "grader" / "release" / "student" / "README.md",
                      repo / "grader" / "release" / "student" / "README.md");
        write(repo / "exercises" / "01_vecadd" / "vecadd.cu", "// the skeleton\n");
        write(repo / ".gitattributes", "/grader/release export-ignore\n/grader/release/** export-ignore\n");
        const std::string git = "git -C '" + repo.string() +
                                "' -c user.name=t -c user.email=t@localhost -c commit.gpgsign=false ";
        ASSERT_EQ(std::system((git + "init -q && " + git + "add -A && " + git + "commit -qm one").c_str()), 0);
    }
    void TearDown() override { fs::remove_all(root); }
    release_result release(const std::string& url) {
        return write_student_edition(repo, "HEAD", root / "out", no_leaks, url);
    }
    static std::vector<solution_leak> no_leaks(const fs::path&, const fs::path&) { return {}; }
    fs::path root, repo;
};

TEST_F(ReleaseRepoUrl, TheUrlIsInTheNotebooksFirstCodeCellAndTheReadme) {
    const std::string url = "https://github.com/example-school/cuda-course-2025";
    const release_result r = release(url);
    const fs::path out = root / "out";

    const auto nb = nlohmann::json::parse(read(out / "colab" / "course.ipynb"));  // still valid JSON
    std::string first_code;
    for (const auto& cell : nb["cells"]) {
        if (cell["cell_type"] != "code") continue;
        for (const auto& line : cell["source"]) first_code += line.get<std::string>();
        break;
    }
    EXPECT_NE(first_code.find("REPO_URL = \"" + url + "\"\n"), std::string::npos) << first_code;
    EXPECT_EQ(first_code.find("YOUR-ORGANISATION"), std::string::npos) << first_code;
    // Written back as Jupyter writes it: the one line differs from the source.
    const auto before = lines_of(read(course_root / "colab" / "course.ipynb"));
    const auto after = lines_of(read(out / "colab" / "course.ipynb"));
    ASSERT_EQ(before.size(), after.size());
    int differ = 0;
    std::string changed;
    for (std::size_t i = 0; i < before.size(); ++i) {
        if (before[i] == after[i]) continue;
        ++differ;
        changed += "\n- " + before[i] + "\n+ " + after[i];
    }
    EXPECT_EQ(differ, 1) << changed;

    const std::string readme = read(out / "README.md");
    EXPECT_NE(readme.find("git clone " + url + " cuda-course"), std::string::npos);
    EXPECT_EQ(readme.find("<this repository>"), std::string::npos);

    EXPECT_EQ(r.repo_url_written, (std::vector<fs::path>{"colab/course.ipynb", "README.md"}));
    EXPECT_TRUE(r.repo_url_placeholders.empty());
    const std::string said = release_repo_url_line(url, r);
    EXPECT_NE(said.find(url), std::string::npos) << said;
    // And the edition's one commit holds it.
    EXPECT_FALSE(r.edition_commit.empty());
    EXPECT_EQ(std::system(("git -C '" + out.string() + "' diff --quiet HEAD").c_str()), 0);
}

TEST_F(ReleaseRepoUrl, WithoutItTheReleaseSaysWhatWillNotWork) {
    const release_result r = release("");
    const fs::path out = root / "out";
    EXPECT_EQ(read(out / "colab" / "course.ipynb"), read(course_root / "colab" / "course.ipynb"));
    EXPECT_NE(read(out / "README.md").find("git clone <this repository>"), std::string::npos);
    EXPECT_EQ(r.repo_url_placeholders, (std::vector<fs::path>{"colab/course.ipynb", "README.md"}));
    const std::string said = release_repo_url_line("", r);
    std::cout << said;
    EXPECT_EQ(said.find('\n'), said.size() - 1) << said;  // one line
    EXPECT_NE(said.find("without --repo-url"), std::string::npos) << said;
    EXPECT_NE(said.find("clone cell stops"), std::string::npos) << said;
    EXPECT_NE(said.find("README's clone line"), std::string::npos) << said;
}

TEST_F(ReleaseRepoUrl, AUrlThatCannotStandInAStringIsRefusedAndNothingWritten) {
    EXPECT_THROW(release("https://example.com/a\"; rm -rf ~; \""), user_error);
    EXPECT_FALSE(fs::exists(root / "out"));
}

// The course's own CMakePresets.json, in the edition: the presets marked as
// the instructor's (the known-wrong versions' build, CI's second toolkit,
// the grader's slow tests) are gone, the student's are all there.
TEST(StudentEditionPresets, TheInstructorsPresetsAreLeftOut) {
    const fs::path edition = fs::temp_directory_path() / ("release-presets-" + std::to_string(::getpid()));
    fs::remove_all(edition);
    fs::create_directories(edition);
    fs::copy_file(course_root / "CMakePresets.json", edition / "CMakePresets.json");
    drop_instructors_presets(edition);
    const auto presets = nlohmann::json::parse(read(edition / "CMakePresets.json"));
    fs::remove_all(edition);
    auto names = [&](const char* kind) {
        std::vector<std::string> out;
        for (const auto& p : presets.at(kind)) out.push_back(p.at("name"));
        return out;
    };
    EXPECT_EQ(names("configurePresets"), (std::vector<std::string>{"default", "gpu", "ci", "portable", "debug"}));
    EXPECT_EQ(names("buildPresets"), (std::vector<std::string>{"default", "portable", "debug"}));
    EXPECT_EQ(names("testPresets"), (std::vector<std::string>{"default"}));
    EXPECT_EQ(presets.at("version"), 4);
}

// A CMakePresets.json that is not JSON is named, not passed on.
TEST(StudentEditionPresets, PresetsThatAreNotJsonAreAClearError) {
    const fs::path edition = fs::temp_directory_path() / ("release-bad-presets-" + std::to_string(::getpid()));
    fs::remove_all(edition);
    fs::create_directories(edition);
    std::ofstream(edition / "CMakePresets.json") << "{\"version\": 4,";
    try {
        drop_instructors_presets(edition);
        ADD_FAILURE() << "a CMakePresets.json that is not JSON was accepted";
    } catch (const user_error& e) {
        EXPECT_NE(std::string(e.what()).find("CMakePresets.json is not valid JSON"), std::string::npos) << e.what();
    }
    fs::remove_all(edition);
}

TEST(StudentEditionFlags, EachInstructorsVersionSaysSoInOneLine) {
    const std::pair<const char*, const char*> cases[] = {{"solution", "no reference solution"},
                                                         {"mutant_no_sync", "no known-wrong versions"},
                                                         {"cheat_hardcoded", "no cheats"},
                                                         {"textbook_naive", "no textbook forms"}};
    for (const auto& [variant, says] : cases) {
        const std::string line = student_edition_lacks("lesson04", variant);
        EXPECT_NE(line.find(says), std::string::npos) << line;
        EXPECT_NE(line.find("instructor's"), std::string::npos) << line;
        EXPECT_EQ(line.find('\n'), std::string::npos) << line;
        EXPECT_EQ(line.find("COURSE_BUILD_MUTANTS"), std::string::npos) << line;
        EXPECT_EQ(line.find("-D"), std::string::npos) << line;
    }
    EXPECT_EQ(student_edition_lacks("lesson04", "exercise"), "");
}

}  // namespace
}  // namespace grader
