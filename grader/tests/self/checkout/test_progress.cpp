#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "checkout/progress.hpp"

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

TEST(Progress, RecordsWhenTheBestScoreWasReached) {
    const auto file = scratch("grader-progress-when.json");
    grader::progress_store p(file);
    ASSERT_TRUE(p.record("lesson01", 5, 15));
    const std::string when = p.get("lesson01")->when;
    // ISO 8601 in UTC: 2025-01-31T17:45:02Z
    EXPECT_EQ(when.size(), 20u) << when;
    EXPECT_EQ(when[4], '-');
    EXPECT_EQ(when[10], 'T');
    EXPECT_EQ(when.back(), 'Z');
    p.save();
    EXPECT_EQ(grader::progress_store(file).get("lesson01")->when, when) << "the time did not survive a reload";
}

TEST(Progress, ALowerScoreKeepsTheTimeOfTheBest) {
    const auto file = scratch("grader-progress-when-kept.json");
    std::ofstream(file) << R"({"version": 1, "lessons": {"lesson01": {"best": 9, "max": 15, "when": "2025-01-31T17:45:02Z"}}})";
    grader::progress_store p(file);
    EXPECT_FALSE(p.record("lesson01", 3, 15));
    EXPECT_EQ(p.get("lesson01")->when, "2025-01-31T17:45:02Z");
}

TEST(Progress, ADeletedFileStartsAfresh) {
    const auto file = scratch("grader-progress-deleted.json");
    {
        grader::progress_store p(file);
        p.record("lesson01", 5, 15);
        p.save();
    }
    std::filesystem::remove(file);
    grader::progress_store p(file);
    EXPECT_EQ(p.get("lesson01"), nullptr);
    EXPECT_TRUE(p.warning().empty()) << "a missing file is a fresh start, not an error";
    EXPECT_TRUE(p.record("lesson01", 2, 15));
    p.save();
    EXPECT_EQ(grader::progress_store(file).get("lesson01")->best, 2);
}

TEST(Progress, AFileOfTheWrongShapeStartsAfreshWithAWarning) {
    const auto file = scratch("grader-progress-shape.json");
    std::ofstream(file) << R"({"lessons": {"lesson01": {"best": "nine", "max": 15}}, "hints_seen": {"lesson01": 2}})";
    grader::progress_store p(file);
    EXPECT_EQ(p.get("lesson01"), nullptr);
    EXPECT_EQ(p.hints_seen("lesson01"), 0) << "half of a bad file was kept";
    EXPECT_NE(p.warning().find("starts afresh"), std::string::npos);
}
