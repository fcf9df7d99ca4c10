// The terminal while `grader watch` runs: keys without Enter, and the
// terminal's settings always given back. Tested on a pseudo-terminal.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <stdexcept>

#include "cli/terminal.hpp"

namespace {
using namespace std::chrono_literals;

// A pseudo-terminal's two ends: the program's side (a terminal) and the other.
struct Pty : ::testing::Test {
    int controller = -1, terminal = -1;

    void SetUp() override {
        controller = posix_openpt(O_RDWR | O_NOCTTY);
        if (controller < 0 || grantpt(controller) != 0 || unlockpt(controller) != 0)
            GTEST_SKIP() << "no pseudo-terminals here";
        terminal = ::open(ptsname(controller), O_RDWR | O_NOCTTY);
        ASSERT_GE(terminal, 0);
    }
    void TearDown() override {
        if (terminal >= 0) ::close(terminal);
        if (controller >= 0) ::close(controller);
    }
    tcflag_t local_flags() const {
        termios t{};
        tcgetattr(terminal, &t);
        return t.c_lflag;
    }
};
}  // namespace

TEST_F(Pty, RawKeysTurnsOffLineEditingAndEchoButNotCtrlC) {
    ASSERT_TRUE(grader::is_terminal(terminal));
    const tcflag_t before = local_flags();
    ASSERT_TRUE(before & ICANON);
    {
        grader::raw_keys keys(terminal);
        EXPECT_TRUE(keys.active());
        EXPECT_FALSE(local_flags() & ICANON);
        EXPECT_FALSE(local_flags() & ECHO);
        EXPECT_TRUE(local_flags() & ISIG) << "Ctrl-C must still stop the watch";
    }
    EXPECT_EQ(local_flags(), before);
}

TEST_F(Pty, TheTerminalComesBackWhenAnExceptionPasses) {
    const tcflag_t before = local_flags();
    try {
        grader::raw_keys keys(terminal);
        throw std::runtime_error("the build folder vanished");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(local_flags(), before);
}

TEST_F(Pty, AKeyArrivesWithoutEnter) {
    grader::raw_keys keys(terminal);
    ASSERT_EQ(::write(controller, "h", 1), 1);
    EXPECT_EQ(grader::read_input(terminal, 1000ms), "h");
}

TEST(Terminal, APipeIsNoTerminalAndRawKeysLeavesItAlone) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    EXPECT_FALSE(grader::is_terminal(fds[0]));
    grader::raw_keys keys(fds[0]);
    EXPECT_FALSE(keys.active());
    ::close(fds[0]);
    ::close(fds[1]);
}

TEST(Terminal, ReadInputWaitsThenReadsThenSeesTheEnd) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    EXPECT_EQ(grader::read_input(fds[0], 10ms), "") << "nothing typed: an empty string after the timeout";
    ASSERT_EQ(::write(fds[1], "q\n", 2), 2);
    EXPECT_EQ(grader::read_input(fds[0], 10ms), "q\n");
    ::close(fds[1]);
    EXPECT_EQ(grader::read_input(fds[0], 10ms), std::nullopt) << "end of input";
    ::close(fds[0]);
}
