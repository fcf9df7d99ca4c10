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

// "lesson01 hint 2 of 6", not "lesson01 of 6: Hint 2"; a title that says
// more than "Hint 2" follows it.
TEST(Hints, HeadingSaysWhichHintOfHowMany) {
    EXPECT_EQ(grader::hint_heading("lesson01", 0, 6, "Hint 1"), "lesson01 hint 1 of 6");
    EXPECT_EQ(grader::hint_heading("lesson01", 5, 6, "hint 6"), "lesson01 hint 6 of 6");
    EXPECT_EQ(grader::hint_heading("lesson05", 1, 5, "Events between streams"),
              "lesson05 hint 2 of 5: Events between streams");
    EXPECT_EQ(grader::hint_heading("lesson05", 1, 5, "Hint 1"), "lesson05 hint 2 of 5: Hint 1");
}
