#include <gtest/gtest.h>

#include "cli/commands.hpp"

TEST(Hints, OneSectionPerHint) {
    const auto hints = grader::parse_hints(
        "# Hints for lesson01\n\nintro text\n\n## Hint 1\nStart with the launch.\n\n## Hint 2\nRound up.\nReally.\n\n");
    ASSERT_EQ(hints.size(), 2u);
    EXPECT_EQ(hints[0].title, "Hint 1");
    EXPECT_EQ(hints[0].text, "Start with the launch.");
    EXPECT_EQ(hints[1].text, "Round up.\nReally.");
}

TEST(Hints, NoSectionsNoHints) { EXPECT_TRUE(grader::parse_hints("just text\n").empty()); }
