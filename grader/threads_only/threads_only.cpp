// course-threads-only SOCKET_FD PROGRAM [ARGS...]
//
// Runs PROGRAM (the student's test program) where it may start threads but
// not processes. A helper process can do a test's work where the graded
// process's record cannot see it (a child forked before main() that works on
// the same arrays through CUDA IPC), so a graded run allows none:
//
// - fork, vfork, and clone without CLONE_THREAD are held for the grader,
//   which hears of each attempt (seccomp's user notification) and answers
//   EPERM: the child never exists, and the report says what was tried;
// - clone3 answers ENOSYS, so that the C library falls back to clone, whose
//   flags a filter can read (clone3's are behind a pointer);
// - threads (clone with CLONE_THREAD) are allowed: the CUDA driver and the
//   student's std::thread need them.
//
// The filter is installed here, just before the exec: bubblewrap, which
// starts this program in the sandbox, needs clone for its own namespaces.
// The listener goes to the grader over SOCKET_FD (an inherited Unix socket)
// before the exec, so no attempt can come before the grader can answer it.
#include <seccomp.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// The rules; `held` is what fork and its kind get: the grader's answer
// (SCMP_ACT_NOTIFY) or, where the kernel cannot notify, EPERM outright.
scmp_filter_ctx threads_only_filter(uint32_t held) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter) return nullptr;
    const bool made = seccomp_rule_add(filter, held, SCMP_SYS(fork), 0) == 0 &&
                      seccomp_rule_add(filter, held, SCMP_SYS(vfork), 0) == 0 &&
                      seccomp_rule_add(filter, held, SCMP_SYS(clone), 1,
                                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)) == 0 &&
                      seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0;
    if (made) return filter;
    seccomp_release(filter);
    return nullptr;
}

// Hands `listener` to the grader: one byte, the descriptor beside it.
bool send_listener(int socket, int listener) {
    char byte = 'L';
    iovec data{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &listener, sizeof(int));
    return sendmsg(socket, &message, MSG_NOSIGNAL) == 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s SOCKET_FD PROGRAM [ARGS...]\n", argv[0]);
        return 127;
    }
    char* end = nullptr;
    const long socket = std::strtol(argv[1], &end, 10);
    if (*end != '\0' || socket < 0) {
        std::fprintf(stderr, "%s: not a descriptor: %s\n", argv[0], argv[1]);
        return 127;
    }

    scmp_filter_ctx filter = threads_only_filter(SCMP_ACT_NOTIFY);
    bool reported = filter && seccomp_load(filter) == 0;
    if (!reported) {
        // An older kernel (before 5.0) cannot hand attempts to the grader:
        // they are still refused, only not reported.
        if (filter) seccomp_release(filter);
        filter = threads_only_filter(SCMP_ACT_ERRNO(EPERM));
        if (!filter || seccomp_load(filter) != 0) {
            std::fprintf(stderr, "%s: cannot install the seccomp filter that refuses new processes\n", argv[0]);
            return 127;
        }
    }
    if (reported) {
        const int listener = seccomp_notify_fd(filter);
        if (listener < 0 || !send_listener(static_cast<int>(socket), listener)) {
            // Without the grader listening, a fork would wait for ever.
            std::fprintf(stderr, "%s: cannot hand the filter's listener to the grader\n", argv[0]);
            return 127;
        }
        close(listener);
    }
    close(static_cast<int>(socket));
    seccomp_release(filter);
    execv(argv[2], argv + 2);
    std::fprintf(stderr, "cannot run %s: %s\n", argv[2], std::strerror(errno));
    return 127;
}
