#pragma once
// The grader's side of course-threads-only (grader/threads_only): the
// student's test program may start threads but not processes. Each attempt
// to start one is held by the kernel until the grader answers it; the grader
// answers EPERM (the child never exists) and keeps what was tried, so that
// the report can say so ("your code started a process (fork): graded runs
// allow threads only").
//
//   process_refusals refusals;                       // before the child starts
//   child_process child({..., .pass_fd = refusals.child_end()});
//   refusals.listen();                               // once it has started
//   ... refusals.take() -> {"fork"}                  // the attempts since the last take
//
// Where the grader was built without libseccomp, available() is false and
// nothing is refused.
#include <memory>
#include <string>
#include <vector>

namespace grader {

class process_refusals {
public:
    process_refusals();
    ~process_refusals();
    process_refusals(const process_refusals&) = delete;
    process_refusals& operator=(const process_refusals&) = delete;

    // Whether this grader can hear and refuse attempts (built with libseccomp).
    static bool available();

    // The socket end the child inherits (as child_process::passed_fd, which
    // course-threads-only is told on its command line), which the launcher
    // sends the filter's listener through.
    int child_end() const;

    // Starts answering, once the child has started (closes the grader's copy
    // of child_end()).
    void listen();

    // What was tried since the last call, in order: "fork", "vfork".
    std::vector<std::string> take();

private:
    struct state;
    std::unique_ptr<state> state_;
};

// The report's words for a refused attempt of kind `what` ("fork", "vfork").
std::string describe_refused_process(const std::string& what);

}  // namespace grader
