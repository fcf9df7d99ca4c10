#pragma once
// The terminal while `grader watch` runs: single keys without Enter, and a
// terminal that is always given back as it was found.
#include <termios.h>

#include <chrono>
#include <optional>
#include <string>

namespace grader {

bool is_terminal(int fd);

// Clears the screen and moves the cursor home, but only on a terminal: a
// log file or a pipe must not collect escape codes.
void clear_screen_if_terminal(int fd);

// While alive, the terminal on `fd` delivers each key at once and does not
// echo it. The old settings come back when it is destroyed (a normal return
// or an exception), and on Ctrl-C or a kill, through a signal handler that
// restores them before the signal takes its usual course. Ctrl-C keeps
// working because signal keys stay enabled. Does nothing if `fd` is not a
// terminal.
class raw_keys {
public:
    explicit raw_keys(int fd);
    ~raw_keys();
    raw_keys(const raw_keys&) = delete;
    raw_keys& operator=(const raw_keys&) = delete;

    bool active() const { return active_; }

private:
    int fd_;
    bool active_ = false;
    termios saved_{};
};

// Waits up to `timeout` for input on `fd` and returns what arrived: some
// bytes, an empty string when the time ran out, nullopt at end of input.
std::optional<std::string> read_input(int fd, std::chrono::milliseconds timeout);

}  // namespace grader
