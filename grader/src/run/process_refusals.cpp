#include "run/process_refusals.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#ifdef COURSE_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace grader {

struct process_refusals::state {
    int parent_end = -1, child_end = -1;
    int wake = -1;  // written once to stop the answering thread
    std::thread answering;
    std::mutex mutex;
    std::vector<std::string> attempts;  // not yet taken

    // Waits for `fd` to be readable or for the wake-up; false on the wake-up
    // or when `fd` has closed.
    bool wait_readable(int fd) const {
        for (;;) {
            pollfd fds[2] = {{fd, POLLIN, 0}, {wake, POLLIN, 0}};
            if (poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return false;
            }
            if (fds[1].revents) return false;
            if (fds[0].revents & POLLIN) return true;
            return false;  // POLLHUP, POLLERR: nobody left on the other side
        }
    }

    // The filter's listener, sent by the launcher before its exec; -1 when
    // the program ended, or the launcher could not send it (an older kernel).
    int receive_listener() const {
        if (!wait_readable(parent_end)) return -1;
        char byte = 0;
        iovec data{&byte, 1};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        msghdr message{};
        message.msg_iov = &data;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        if (recvmsg(parent_end, &message, MSG_CMSG_CLOEXEC) != 1) return -1;
        const cmsghdr* header = CMSG_FIRSTHDR(&message);
        if (!header || header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) return -1;
        int listener = -1;
        std::memcpy(&listener, CMSG_DATA(header), sizeof(int));
        return listener;
    }

#ifdef COURSE_HAVE_SECCOMP
    // Answers every attempt with EPERM until woken, keeping what it was.
    void answer(int listener) {
        seccomp_notif* request = nullptr;
        seccomp_notif_resp* response = nullptr;
        if (seccomp_notify_alloc(&request, &response) != 0) return;
        while (wait_readable(listener)) {
            // The kernel wants the request zeroed.
            std::memset(request, 0, sizeof *request);
            if (seccomp_notify_receive(listener, request) != 0) continue;  // the asker has gone
            keep(what_was_tried(*request));
            response->id = request->id;
            response->val = 0;
            response->error = -EPERM;
            response->flags = 0;
            seccomp_notify_respond(listener, response);
        }
        seccomp_notify_free(request, response);
    }

    static std::string what_was_tried(const seccomp_notif& request) {
        char* name = seccomp_syscall_resolve_num_arch(request.data.arch, request.data.nr);
        const std::string syscall = name ? name : fmt::format("system call {}", request.data.nr);
        std::free(name);
        // glibc's fork() is clone without CLONE_THREAD; posix_spawn, system()
        // and popen() make a vfork-like clone.
        if (syscall == "clone") return request.data.args[0] & CLONE_VFORK ? "vfork" : "fork";
        return syscall;
    }
#else
    void answer(int) {}
#endif

    void keep(std::string what) {
        const std::lock_guard lock(mutex);
        attempts.push_back(std::move(what));
    }
};

bool process_refusals::available() {
#ifdef COURSE_HAVE_SECCOMP
    return true;
#else
    return false;
#endif
}

process_refusals::process_refusals() : state_(std::make_unique<state>()) {
    int ends[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0)
        throw std::runtime_error(fmt::format("socketpair: {}", std::strerror(errno)));
    state_->parent_end = ends[0];
    state_->child_end = ends[1];
    state_->wake = eventfd(0, EFD_CLOEXEC);
    if (state_->wake < 0) {
        ::close(ends[0]);
        ::close(ends[1]);
        throw std::runtime_error(fmt::format("eventfd: {}", std::strerror(errno)));
    }
}

process_refusals::~process_refusals() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = ::write(state_->wake, &one, sizeof one);
    if (state_->answering.joinable()) state_->answering.join();
    for (int fd : {state_->parent_end, state_->child_end, state_->wake})
        if (fd >= 0) ::close(fd);
}

int process_refusals::child_end() const { return state_->child_end; }

void process_refusals::listen() {
    ::close(state_->child_end);
    state_->child_end = -1;
    state_->answering = std::thread([s = state_.get()] {
        const int listener = s->receive_listener();
        if (listener < 0) return;
        s->answer(listener);
        ::close(listener);
    });
}

std::vector<std::string> process_refusals::take() {
    const std::lock_guard lock(state_->mutex);
    return std::exchange(state_->attempts, {});
}

std::string describe_refused_process(const std::string& what) {
    const std::string how = what == "vfork" ? "vfork: posix_spawn, system() and popen() start one that way" : what;
    return fmt::format(
        "your code started a process ({}): graded runs allow threads only, so it was refused (the process never "
        "ran) and the rest was graded as it was",
        how);
}

}  // namespace grader
