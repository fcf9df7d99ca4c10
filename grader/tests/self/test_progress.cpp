#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "progress.hpp"

namespace {
std::filesystem::path scratch(const char* name) {
    auto p = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove(p);
    return p;
}
}  // namespace

TEST(Progress, KeepsTheBestScore) {
    const auto file = scratch("grader-progress-best.json");
    {
        grader::progress_store p(file);
        EXPECT_TRUE(p.record("lesson01", 5, 15));
        EXPECT_FALSE(p.record("lesson01", 3, 15));
        EXPECT_TRUE(p.record("lesson01", 9, 15));
        p.save();
    }
    grader::progress_store again(file);
    ASSERT_NE(again.get("lesson01"), nullptr);
    EXPECT_EQ(again.get("lesson01")->best, 9);
    EXPECT_EQ(again.get("lesson02"), nullptr);
    EXPECT_TRUE(again.warning().empty());
}

TEST(Progress, ACorruptFileStartsAfreshWithAWarning) {
    const auto file = scratch("grader-progress-corrupt.json");
    std::ofstream(file) << "{ not json";
    grader::progress_store p(file);
    EXPECT_EQ(p.get("lesson01"), nullptr);
    EXPECT_NE(p.warning().find("starts afresh"), std::string::npos);
    EXPECT_TRUE(p.record("lesson01", 1, 15));
    p.save();
    EXPECT_TRUE(grader::progress_store(file).warning().empty());
}

TEST(Progress, RemembersHintsSeen) {
    const auto file = scratch("grader-progress-hints.json");
    {
        grader::progress_store p(file);
        EXPECT_EQ(p.hints_seen("lesson01"), 0);
        p.set_hints_seen("lesson01", 2);
        p.save();
    }
    EXPECT_EQ(grader::progress_store(file).hints_seen("lesson01"), 2);
}
