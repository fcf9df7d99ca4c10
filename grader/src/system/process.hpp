#pragma once
// Child processes for the grader: student code runs in a separate process
// group, its output goes to a log file, and the grader reads a line-based
// event stream from it with a deadline, so a crash or a hang is observed
// from outside rather than suffered.
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace grader {

class capped_output;

struct exit_status {
    bool signaled = false;
    int code = 0;    // exit code, or the signal number when signaled
    std::string describe() const;  // "exit code 1", "signal 11 (SIGSEGV, a segmentation fault)"
};

class child_process {
public:
    struct options {
        std::vector<std::string> argv;
        std::vector<std::pair<std::string, std::string>> env;  // added to ours
        std::filesystem::path output;  // stdout and stderr go here
        bool events = false;           // open a pipe on fd 3 for events
        std::optional<std::filesystem::path> working_dir;
        long long max_file_bytes = 0;  // RLIMIT_FSIZE for the child; 0: none
        std::size_t max_event_line = 64 * 1024;  // longer event lines are dropped
        long long max_data_bytes = 0;  // RLIMIT_DATA (heap and writable private memory); 0: none
        long long max_processes = 0;   // RLIMIT_NPROC (the kernel does not hold root to it); 0: none
        // When not 0, the output goes through a pipe and the log keeps only
        // the first and last this many bytes of it (capped_output.hpp):
        // however much the child prints, it is never killed for it.
        std::size_t keep_output_bytes = 0;
        // When not -1, handed to the child as descriptor passed_fd (the
        // grader's end of a conversation with a launcher: process_refusals.hpp).
        int pass_fd = -1;
        // Added to the grader's own niceness (up to 19): work that must not
        // take the CPU from the grading (a batch's builds ahead of their turn,
        // an explanation's reruns). It lowers priority only where the kernel
        // weighs niceness across sessions (a container's cgroup, a systemd
        // slice; not the root cgroup with autogroups, where each session
        // weighs the same).
        int niceness = 0;
    };

    explicit child_process(const options& opts);
    ~child_process();
    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;

    // Waits until a whole event line arrives, the stream ends (nullopt,
    // `ended` true) or the deadline passes (nullopt, `ended` false). A line
    // longer than max_event_line is dropped unread and counted.
    std::optional<std::string> next_event(std::chrono::steady_clock::time_point deadline, bool& ended);
    int dropped_lines() const { return dropped_lines_; }

    void kill();           // the whole process group, at once
    exit_status wait();    // reaps the child
    // The exit status if the child has ended, without waiting (reaps it).
    std::optional<exit_status> try_wait();

    int pid() const { return pid_; }

    static constexpr int events_fd = 3;
    static constexpr int passed_fd = 4;

private:
    int pid_ = -1;
    int events_read_ = -1;
    std::string buffer_;
    std::size_t max_line_ = 0;
    bool discarding_ = false;  // inside an over-long line, until its newline
    int dropped_lines_ = 0;
    bool reaped_ = false;
    exit_status status_;
    std::unique_ptr<capped_output> output_;  // when the output is capped

    exit_status reaped(int raw);
};

// Runs a command to completion; returns its exit status, output in `output`.
exit_status run_command(const std::vector<std::string>& argv, const std::filesystem::path& output,
                        const std::optional<std::filesystem::path>& working_dir = std::nullopt);

// Runs a command as child_process `opts` describes, but for no longer than
// `limit`: then its whole process group is killed and `timed_out` is set.
exit_status run_with_time_limit(const child_process::options& opts, std::chrono::milliseconds limit,
                                bool& timed_out);

// The program `name` as found on PATH (an executable file), for commands
// run_command must be given by their full path.
std::optional<std::filesystem::path> find_program(const std::string& name);

// The whole of a text file; empty when it cannot be read (a log a crashed
// program never wrote, say).
std::string file_text(const std::filesystem::path& file);

// The last `lines` lines of a text file (for crash reports).
std::string tail_of_file(const std::filesystem::path& file, std::size_t lines);

}  // namespace grader
