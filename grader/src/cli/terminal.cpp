#include "cli/terminal.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace grader {

namespace {
// What the signal handlers need. Only one raw_keys is active at a time.
int g_fd = -1;
termios g_saved{};
termios g_raw{};
volatile sig_atomic_t g_active = 0;

constexpr int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_previous[sizeof fatal_signals / sizeof *fatal_signals];
struct sigaction g_previous_tstp;

int index_of(int sig) {
    for (std::size_t i = 0; i < std::size(fatal_signals); ++i)
        if (fatal_signals[i] == sig) return static_cast<int>(i);
    return -1;
}

// Ctrl-C and friends: give the terminal back, then let the signal do what it
// would have done without us (normally: end the program).
void on_fatal_signal(int sig) {
    const int saved_errno = errno;
    if (g_active) tcsetattr(g_fd, TCSANOW, &g_saved);
    if (const int i = index_of(sig); i >= 0) sigaction(sig, &g_previous[i], nullptr);
    raise(sig);
    errno = saved_errno;
}

// Ctrl-Z: give the terminal back while stopped, take it again on `fg`.
void on_stop_signal(int) {
    const int saved_errno = errno;
    if (g_active) tcsetattr(g_fd, TCSANOW, &g_saved);
    signal(SIGTSTP, SIG_DFL);
    raise(SIGTSTP);  // stops here until continued
    struct sigaction again {};
    again.sa_handler = on_stop_signal;
    sigaction(SIGTSTP, &again, nullptr);
    if (g_active) tcsetattr(g_fd, TCSANOW, &g_raw);
    errno = saved_errno;
}
}  // namespace

bool is_terminal(int fd) { return isatty(fd) == 1; }

void clear_screen_if_terminal(int fd) {
    if (!is_terminal(fd)) return;
    static constexpr char clear[] = "\x1b[2J\x1b[H";  // the screen, then the cursor home; scrollback stays
    [[maybe_unused]] const auto ignored = ::write(fd, clear, sizeof clear - 1);
}

raw_keys::raw_keys(int fd) : fd_(fd) {
    if (!is_terminal(fd) || tcgetattr(fd, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);  // ISIG stays: Ctrl-C still interrupts
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;

    g_fd = fd;
    g_saved = saved_;
    g_raw = raw;
    struct sigaction handler {};
    handler.sa_handler = on_fatal_signal;
    sigemptyset(&handler.sa_mask);
    for (std::size_t i = 0; i < std::size(fatal_signals); ++i) sigaction(fatal_signals[i], &handler, &g_previous[i]);
    handler.sa_handler = on_stop_signal;
    sigaction(SIGTSTP, &handler, &g_previous_tstp);

    if (tcsetattr(fd, TCSANOW, &raw) != 0) {
        for (std::size_t i = 0; i < std::size(fatal_signals); ++i) sigaction(fatal_signals[i], &g_previous[i], nullptr);
        sigaction(SIGTSTP, &g_previous_tstp, nullptr);
        return;
    }
    active_ = true;
    g_active = 1;
}

raw_keys::~raw_keys() {
    if (!active_) return;
    g_active = 0;
    tcsetattr(fd_, TCSANOW, &saved_);
    for (std::size_t i = 0; i < std::size(fatal_signals); ++i) sigaction(fatal_signals[i], &g_previous[i], nullptr);
    sigaction(SIGTSTP, &g_previous_tstp, nullptr);
}

std::optional<std::string> read_input(int fd, std::chrono::milliseconds timeout) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(timeout.count()));
    if (ready < 0) {
        if (errno == EINTR) return std::string{};  // a signal such as SIGWINCH or SIGCONT: nothing typed
        throw std::runtime_error(std::string("poll on the keyboard: ") + std::strerror(errno));
    }
    if (ready == 0) return std::string{};
    char buffer[256];
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) return std::string(buffer, static_cast<std::size_t>(got));
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return std::string{};
    return std::nullopt;  // end of input (or an error that ends it)
}

}  // namespace grader
