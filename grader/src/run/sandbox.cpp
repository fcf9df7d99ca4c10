#include "run/sandbox.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "system/process.hpp"

namespace grader {

namespace fs = std::filesystem;

bubblewrap_search search_bubblewrap() {
    std::vector<fs::path> candidates;
    if (const char* chosen = std::getenv("COURSE_BWRAP"); chosen && *chosen) candidates.emplace_back(chosen);
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty()) candidates.push_back(fs::path(dir) / "bwrap");
    }
    std::vector<std::string> failures;  // each bwrap found that could not run, with its own words
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        // Installed is not enough: some machines forbid the namespaces it needs.
        const fs::path log = fs::temp_directory_path() / fmt::format("grader-bwrap-check-{}.log", ::getpid());
        const exit_status probe = run_command({candidate.string(), "--ro-bind", "/", "/", "--unshare-net",
                                               "--unshare-pid", "--die-with-parent", "--", "/bin/true"},
                                              log);
        std::string said = file_text(log);
        fs::remove(log, ec);
        if (!probe.signaled && probe.code == 0) return {candidate, ""};
        said = said.substr(0, said.find('\n'));
        failures.push_back(fmt::format("{} failed ({}{})", candidate.string(), probe.describe(),
                                       said.empty() ? "" : ": " + said));
    }
    if (failures.empty()) return {std::nullopt, "bubblewrap (bwrap) is not installed: none on PATH"};
    return {std::nullopt, fmt::format("bubblewrap cannot run here: {}", fmt::join(failures, "; "))};
}

std::optional<fs::path> find_bubblewrap() { return search_bubblewrap().bwrap; }

std::string sandbox_refusal(const std::string& problem) {
    return fmt::format(
        "{}. Without the sandbox, students' code would run with your rights and could read the reference "
        "solutions, other students' files and yours, so nothing was graded. Install bubblewrap (apt-get install "
        "bubblewrap) and let it create user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 "
        "and newer kernel.apparmor_restrict_unprivileged_userns=0; in a container, run it with --privileged or "
        "without its seccomp filter), or pass --no-sandbox to grade without it, knowing that students' code then "
        "runs with your rights (every report says so)",
        problem);
}

std::string describe_no_sandbox() {
    return "NOT SANDBOXED (--no-sandbox): the test program ran with the grader's rights, so it could read the "
           "reference solutions, other students' files and the grader's own, and reach the network";
}

std::vector<fs::path> gpu_device_files(const fs::path& dev) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dev, ec)) {
        const std::string name = entry.path().filename().string();
        // nvidia0..N, nvidiactl, nvidia-uvm(-tools), nvidia-modeset, and the
        // nvidia-caps folder (MIG); dxg is the GPU under WSL2.
        if (name.rfind("nvidia", 0) == 0 || name == "dxg") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::string> sandboxed_command(const fs::path& bwrap, const sandbox_spec& spec,
                                           const std::vector<std::string>& argv) {
    std::vector<std::string> command{
        bwrap.string(),
        "--ro-bind", "/", "/",        // the machine, read-only
        "--dev", "/dev",              // a private /dev: null, zero, random, tty, pts...
        "--proc", "/proc",
        "--tmpfs", "/dev/shm",        // private: where programs leave files for others
        "--unshare-net",              // no network, no abstract sockets
        "--unshare-pid",              // its processes die with it
        "--unshare-ipc",              // its own System V and POSIX message queues, semaphores, shared memory
        "--new-session",              // no reaching back into the grader's terminal
        "--die-with-parent",          // killed with the grader's child
    };
    auto add = [&](const char* option, const fs::path& path) {
        command.insert(command.end(), {option, path.string()});
        if (std::string(option) != "--tmpfs") command.push_back(path.string());
    };
    std::error_code ec;
    // Nothing writable is shared with the machine or another run: each of
    // these becomes a private, empty, throw-away folder. /var/tmp is where
    // programs leave files for later; /run holds the machine's Unix sockets
    // (a socket on a read-only mount still accepts connections).
    for (const char* shared : {"/tmp", "/var/tmp", "/run"})
        if (fs::is_directory(shared, ec)) add("--tmpfs", shared);
    // Of the machine's devices, the GPU's alone.
    for (const auto& device : gpu_device_files("/dev")) add("--dev-bind", device);
    // The user's home, where a student keeps other work and keys: an empty one.
    if (const char* home = std::getenv("HOME"); home && *home && fs::path(home) != "/" && fs::is_directory(home, ec))
        add("--tmpfs", fs::path(home));
    for (const auto& path : spec.kept)
        if (fs::exists(path, ec)) add("--ro-bind", path);
    for (const auto& path : spec.hidden)
        if (fs::exists(path, ec)) add("--tmpfs", path);  // nothing there: nothing to hide
    for (const auto& path : spec.readable) add("--ro-bind", path);
    for (const auto& path : spec.writable) add("--bind", path);
    command.push_back("--");
    command.insert(command.end(), argv.begin(), argv.end());
    return command;
}

std::string describe_sandbox(const std::optional<fs::path>& bwrap) {
    if (bwrap)
        return "the test program ran in a sandbox (bubblewrap): no network; the reference solutions, the "
               "known-wrong versions, the build folder, other submissions and your home folder were not visible "
               "to it, and it shared no writable place with the machine";
    return "NOT SANDBOXED: bubblewrap (bwrap) is not installed or may not create namespaces here, so the "
           "test program could read the reference solutions and other files; install it with "
           "`apt-get install bubblewrap`";
}

}  // namespace grader
