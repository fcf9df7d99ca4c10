#include "batch/class_report_ahead.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "system/python.hpp"

namespace grader {

// A socket rather than a pipe: send(MSG_NOSIGNAL) to a script that has
// already ended fails with EPIPE instead of killing the grader with SIGPIPE.
struct class_report_ahead::waiting_script {
    std::unique_ptr<child_process> process;
    int socket = -1;  // the grader's end; closing it tells the script there is nothing to draw

    ~waiting_script() {
        close_socket();
        if (process) process->wait();  // it ends once it reads the socket's end
    }
    void close_socket() {
        if (socket >= 0) ::close(socket);
        socket = -1;
    }
};

class_report_ahead::class_report_ahead(const std::filesystem::path& script) : scratch_("grader-class-report") {
    started_ = std::async(std::launch::async, [this, script] {
        const std::string python = find_python(scratch_ / "check.log");
        int ends[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
            throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
        auto waiting = std::make_unique<waiting_script>();
        waiting->socket = ends[0];
        child_process::options options;
        options.argv = {"/usr/bin/env", python, script.string(), "--arguments-on-fd",
                        std::to_string(child_process::passed_fd)};
        options.output = log();
        options.pass_fd = ends[1];
        try {
            waiting->process = std::make_unique<child_process>(options);
        } catch (...) {
            ::close(ends[1]);
            throw;
        }
        ::close(ends[1]);  // the script's end is its own now
        return waiting;
    });
}

class_report_ahead::~class_report_ahead() {
    if (!started_.valid()) return;  // drawn
    try {
        started_.get();  // and let go: the script reads the socket's end and exits
    } catch (...) {
        // No Python, or it could not start: there is nothing to stop.
    }
}

exit_status class_report_ahead::draw(const std::filesystem::path& data_file, const std::filesystem::path& out_dir) {
    const std::unique_ptr<waiting_script> waiting = started_.get();
    const std::string arguments =
        nlohmann::json::array({data_file.string(), "-o", out_dir.string()}).dump() + "\n";
    // A short write is not expected on a fresh local socket; one that fails
    // (the script already ended) shows as its exit status and log.
    [[maybe_unused]] const ssize_t sent = send(waiting->socket, arguments.data(), arguments.size(), MSG_NOSIGNAL);
    waiting->close_socket();
    return waiting->process->wait();
}

}  // namespace grader
