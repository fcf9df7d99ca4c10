#include "run/sandbox.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

#include "system/process.hpp"

namespace grader {

namespace fs = std::filesystem;

std::optional<fs::path> find_bubblewrap() {
    std::vector<fs::path> candidates;
    if (const char* chosen = std::getenv("COURSE_BWRAP"); chosen && *chosen) candidates.emplace_back(chosen);
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty()) candidates.push_back(fs::path(dir) / "bwrap");
    }
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        // Installed is not enough: some machines forbid the namespaces it needs.
        const fs::path log = fs::temp_directory_path() / "grader-bwrap-check.log";
        const exit_status probe = run_command({candidate.string(), "--ro-bind", "/", "/", "--unshare-net",
                                               "--unshare-pid", "--die-with-parent", "--", "/bin/true"},
                                              log);
        fs::remove(log, ec);
        if (!probe.signaled && probe.code == 0) return candidate;
    }
    return std::nullopt;
}

std::vector<std::string> sandboxed_command(const fs::path& bwrap, const sandbox_spec& spec,
                                           const std::vector<std::string>& argv) {
    std::vector<std::string> command{
        bwrap.string(),
        "--ro-bind", "/", "/",        // the machine, read-only
        "--dev-bind", "/dev", "/dev", // the GPU's device files
        "--proc", "/proc",
        "--tmpfs", "/tmp",            // a private, empty /tmp
        "--unshare-net",              // no network
        "--unshare-pid", "--unshare-ipc",
        "--new-session",              // no reaching back into the grader's terminal
        "--die-with-parent",          // killed with the grader's child
    };
    auto add = [&](const char* option, const fs::path& path) {
        command.insert(command.end(), {option, path.string()});
        if (std::string(option) != "--tmpfs") command.push_back(path.string());
    };
    std::error_code ec;
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
               "known-wrong versions, the build folder and other submissions were not visible to it";
    return "NOT SANDBOXED: bubblewrap (bwrap) is not installed or may not create namespaces here, so the "
           "test program could read the reference solutions and other files; install it with "
           "`apt-get install bubblewrap`";
}

}  // namespace grader
