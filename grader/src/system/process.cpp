#include "system/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "system/capped_output.hpp"

namespace grader {

namespace {
const char* signal_meaning(int sig) {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV, a segmentation fault: host code used a bad pointer";
        case SIGABRT: return "SIGABRT: the program aborted, often an uncaught exception";
        case SIGFPE: return "SIGFPE: an arithmetic error such as an integer division by zero";
        case SIGBUS: return "SIGBUS: a misaligned or invalid memory access";
        case SIGKILL: return "SIGKILL: killed";
        case SIGILL: return "SIGILL: an illegal instruction";
        case SIGXFSZ: return "SIGXFSZ: a file it wrote grew past the grader's size limit";
        default: return strsignal(sig);
    }
}
}  // namespace

std::string exit_status::describe() const {
    if (signaled) return fmt::format("signal {} ({})", code, signal_meaning(code));
    return fmt::format("exit code {}", code);
}

child_process::child_process(const options& opts) : max_line_(opts.max_event_line) {
    int pipe_fds[2] = {-1, -1};
    if (opts.events && pipe2(pipe_fds, O_CLOEXEC) != 0)
        throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    int out = -1;
    if (opts.keep_output_bytes > 0) {
        output_ = std::make_unique<capped_output>(opts.output, opts.keep_output_bytes);
        out = output_->write_end();
    } else {
        out = ::open(opts.output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0)
            throw std::runtime_error(fmt::format("cannot write {}: {}", opts.output.string(), std::strerror(errno)));
    }

    std::vector<char*> argv;
    for (const auto& a : opts.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
    if (pid_ == 0) {
        // Child: own process group (so a kill reaches its children too),
        // output to the log, events on fd 3.
        setpgid(0, 0);
        // Out of the way of the descriptors about to be set (pass_fd may be 3 or 4 itself).
        const int passed = opts.pass_fd >= 0 ? fcntl(opts.pass_fd, F_DUPFD_CLOEXEC, 10) : -1;
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, STDIN_FILENO);
        if (opts.events) {
            if (pipe_fds[1] == events_fd) fcntl(events_fd, F_SETFD, 0);  // keep it across exec
            else dup2(pipe_fds[1], events_fd);  // the copy does not inherit CLOEXEC
        }
        if (passed >= 0) dup2(passed, passed_fd);  // the copy does not inherit CLOEXEC
        if (passed >= 0 && !opts.events) ::close(events_fd);
        // Nothing else the grader holds (or inherited) reaches the child: the
        // code under test gets stdin, stdout, stderr, the events pipe and
        // the passed descriptor only.
        close_range(passed >= 0 ? passed_fd + 1 : opts.events ? events_fd + 1 : events_fd, ~0U, 0);
        if (opts.max_file_bytes > 0) {
            const rlimit limit{static_cast<rlim_t>(opts.max_file_bytes), static_cast<rlim_t>(opts.max_file_bytes)};
            setrlimit(RLIMIT_FSIZE, &limit);
        }
        if (opts.max_data_bytes > 0) {
            const rlimit limit{static_cast<rlim_t>(opts.max_data_bytes), static_cast<rlim_t>(opts.max_data_bytes)};
            setrlimit(RLIMIT_DATA, &limit);
        }
        if (opts.max_processes > 0) {
            const rlimit limit{static_cast<rlim_t>(opts.max_processes), static_cast<rlim_t>(opts.max_processes)};
            setrlimit(RLIMIT_NPROC, &limit);
        }
        if (opts.niceness > 0) {
            errno = 0;
            const int own = getpriority(PRIO_PROCESS, 0);
            if (errno == 0) setpriority(PRIO_PROCESS, 0, std::min(19, own + opts.niceness));
        }
        for (const auto& [name, value] : opts.env) setenv(name.c_str(), value.c_str(), 1);
        if (opts.working_dir && chdir(opts.working_dir->c_str()) != 0) _exit(127);
        execv(argv[0], argv.data());
        std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
        _exit(127);
    }
    setpgid(pid_, pid_);  // also here, so the group exists before any kill
    if (output_) output_->start();  // closes the grader's copy of the pipe
    else ::close(out);
    if (opts.events) {
        ::close(pipe_fds[1]);
        events_read_ = pipe_fds[0];
    }
}

child_process::~child_process() {
    if (!reaped_) {
        kill();
        wait();
    }
    if (events_read_ >= 0) ::close(events_read_);
}

std::optional<std::string> child_process::next_event(std::chrono::steady_clock::time_point deadline,
                                                     bool& ended) {
    ended = false;
    for (;;) {
        if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            if (discarding_) {  // the end of an over-long line
                discarding_ = false;
                continue;
            }
            if (line.size() > max_line_) {
                ++dropped_lines_;
                continue;
            }
            return line;
        }
        if (buffer_.size() > max_line_) {  // no newline in sight: drop it as it comes
            if (!discarding_) ++dropped_lines_;
            discarding_ = true;
            buffer_.clear();
        }
        if (events_read_ < 0) {
            ended = true;
            return std::nullopt;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd p{events_read_, POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
        if (ready <= 0) continue;
        char chunk[4096];
        const ssize_t got = ::read(events_read_, chunk, sizeof chunk);
        if (got > 0) {
            buffer_.append(chunk, static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
            ::close(events_read_);
            events_read_ = -1;
        }
    }
}

void child_process::kill() {
    if (pid_ > 0 && !reaped_) ::kill(-pid_, SIGKILL);
}

exit_status child_process::reaped(int raw) {
    reaped_ = true;
    if (WIFSIGNALED(raw)) status_ = {true, WTERMSIG(raw)};
    else status_ = {false, WEXITSTATUS(raw)};
    // What is still in the pipe belongs to the log; a process the child left
    // behind with the pipe open gets two seconds, not the grader's patience.
    if (output_) output_->finish(std::chrono::seconds(2));
    return status_;
}

exit_status child_process::wait() {
    if (reaped_) return status_;
    int raw = 0;
    while (waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
    return reaped(raw);
}

std::optional<exit_status> child_process::try_wait() {
    if (reaped_) return status_;
    int raw = 0;
    const pid_t done = waitpid(pid_, &raw, WNOHANG);
    if (done != pid_) return std::nullopt;
    return reaped(raw);
}

exit_status run_command(const std::vector<std::string>& argv, const std::filesystem::path& output,
                        const std::optional<std::filesystem::path>& working_dir) {
    child_process child({argv, {}, output, false, working_dir});
    return child.wait();
}

exit_status run_with_time_limit(const child_process::options& opts, std::chrono::milliseconds limit,
                                bool& timed_out) {
    child_process child(opts);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    timed_out = false;
    for (auto pause = std::chrono::milliseconds(2);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
        if (auto status = child.try_wait()) return *status;
        if (std::chrono::steady_clock::now() >= deadline) {
            timed_out = true;
            child.kill();
            return child.wait();
        }
        std::this_thread::sleep_for(pause);
    }
}

std::optional<std::filesystem::path> find_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        if (dir.empty()) continue;
        const std::filesystem::path candidate = std::filesystem::path(dir) / name;
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

std::string file_text(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string tail_of_file(const std::filesystem::path& file, std::size_t lines) {
    std::ifstream in(file);
    std::deque<std::string> last;
    for (std::string line; std::getline(in, line);) {
        last.push_back(line);
        if (last.size() > lines) last.pop_front();
    }
    std::string text;
    for (const auto& l : last) text += l + "\n";
    return text;
}

}  // namespace grader
