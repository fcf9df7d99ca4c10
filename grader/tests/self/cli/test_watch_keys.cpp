// What a student types while `grader watch` runs.
#include <gtest/gtest.h>

#include "cli/watch_keys.hpp"

using grader::watch_command;

TEST(WatchKeys, SingleKeys) {
    EXPECT_EQ(grader::parse_key('h'), watch_command::hint);
    EXPECT_EQ(grader::parse_key('N'), watch_command::next);
    EXPECT_EQ(grader::parse_key('r'), watch_command::regrade);
    EXPECT_EQ(grader::parse_key('\n'), watch_command::regrade);
    EXPECT_EQ(grader::parse_key('\r'), watch_command::regrade);
    EXPECT_EQ(grader::parse_key('q'), watch_command::quit);
    EXPECT_EQ(grader::parse_key('x'), std::nullopt);
    EXPECT_EQ(grader::parse_key('\x1b'), std::nullopt);
}

TEST(WatchKeys, Lines) {
    EXPECT_EQ(grader::parse_line(""), watch_command::regrade);
    EXPECT_EQ(grader::parse_line("  \r"), watch_command::regrade);
    EXPECT_EQ(grader::parse_line("h"), watch_command::hint);
    EXPECT_EQ(grader::parse_line(" Next "), watch_command::next);
    EXPECT_EQ(grader::parse_line("quit"), watch_command::quit);
    EXPECT_EQ(grader::parse_line("hq"), std::nullopt);
}

TEST(WatchKeys, KeysArriveInAnyPieces) {
    grader::watch_input keys(true);
    int not_understood = 0;
    EXPECT_EQ(keys.feed("hx", not_understood), std::vector<watch_command>{watch_command::hint});
    EXPECT_EQ(not_understood, 1);
    EXPECT_EQ(keys.feed("\x1b[A", not_understood), std::vector<watch_command>{}) << "an arrow key is no command";
    EXPECT_EQ(keys.feed("rq", not_understood),
              (std::vector<watch_command>{watch_command::regrade, watch_command::quit}));
}

TEST(WatchKeys, LinesArriveInAnyPieces) {
    grader::watch_input lines(false);
    int not_understood = 0;
    EXPECT_TRUE(lines.feed("hi", not_understood).empty());
    EXPECT_EQ(lines.feed("nt\n\nq", not_understood),
              (std::vector<watch_command>{watch_command::hint, watch_command::regrade}));
    EXPECT_EQ(not_understood, 0);
    EXPECT_EQ(lines.feed("\nwhat\n", not_understood), std::vector<watch_command>{watch_command::quit});
    EXPECT_EQ(not_understood, 1);
}
