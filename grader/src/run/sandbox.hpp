#pragma once
// The sandbox for graded runs (grader verify, Gradescope, batch grading):
// the student's test program runs under bubblewrap with no network, its own
// process and IPC-free view of the machine, and the course's secrets hidden:
// the reference solutions, the known-wrong versions and cheats, the build
// folder (which holds the compiled solutions and other variants' evidence)
// and any other folder the caller names (other students' work). Only the
// files the program needs are shown again inside what is hidden.
//
// It shares nothing writable with the machine or another run: /tmp,
// /dev/shm, /var/tmp, /run (sockets) and the home folder are private and
// empty, /dev holds only the GPU's device files beside the usual null,
// zero and random, and every process it starts dies with it.
//
// Graded runs that decide a grade (`grader batch`, `grader run --sandbox`:
// Gradescope's script) fail closed: where bubblewrap cannot run they refuse
// (sandbox_refusal) unless told to go without it (--no-sandbox), and then
// every report says so (describe_no_sandbox). `grader verify`, which runs the
// course's own variants, runs them as they are there and says so.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

struct sandbox_spec {
    std::vector<std::filesystem::path> hidden;    // replaced by empty, throw-away folders
    std::vector<std::filesystem::path> readable;  // shown again, read-only (inside a hidden folder, say)
    std::vector<std::filesystem::path> writable;  // shown again, writable (the evidence folder)
    // Shown read-only although a private folder (/tmp, the home folder)
    // would hide them: the course, when it is checked out there (a student's
    // ~/cuda-course, a CI clone under /tmp). What `hidden` names inside them
    // is hidden still.
    std::vector<std::filesystem::path> kept;
};

// The GPU's device files in `dev` (/dev/nvidia*, and /dev/dxg under WSL2):
// the only devices of the machine shown inside.
std::vector<std::filesystem::path> gpu_device_files(const std::filesystem::path& dev);

// bubblewrap's `bwrap` on PATH (or $COURSE_BWRAP), if it is there and works here.
std::optional<std::filesystem::path> find_bubblewrap();

// The same, and when there is none, why in words: "bubblewrap (bwrap) is not
// installed: none on PATH", or "bubblewrap cannot run here: /usr/bin/bwrap
// failed (exit code 1: bwrap: setting up uid map: Permission denied)".
struct bubblewrap_search {
    std::optional<std::filesystem::path> bwrap;
    std::string problem;  // empty when bwrap was found and works
};
bubblewrap_search search_bubblewrap();

// The error of a graded run that will not grade without the sandbox:
// `problem` (search_bubblewrap's), that students' code would run with the
// grader's rights, and the fixes (install bubblewrap, allow unprivileged user
// namespaces, or --no-sandbox knowingly).
std::string sandbox_refusal(const std::string& problem);

// One line for the report of a graded run told to go without the sandbox
// (--no-sandbox): what the test program could do.
std::string describe_no_sandbox();

// The command line that runs `argv` inside the sandbox.
std::vector<std::string> sandboxed_command(const std::filesystem::path& bwrap, const sandbox_spec& spec,
                                           const std::vector<std::string>& argv);

// One line for the report: what the sandbox hid, or that there was none.
std::string describe_sandbox(const std::optional<std::filesystem::path>& bwrap);

}  // namespace grader
