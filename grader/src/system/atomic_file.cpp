#include "system/atomic_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include "system/user_error.hpp"

namespace grader {

namespace {

[[noreturn]] void cannot_write(const std::filesystem::path& file, const std::string& why) {
    throw user_error(usage_error, fmt::format("cannot write {}: {}. Check that its folder is writable and the "
                                              "disk is not full, then run the command again.",
                                              file.string(), why));
}

// Writes all of `content` to `fd`, however many calls that takes.
bool write_all(int fd, std::string_view content) {
    while (!content.empty()) {
        const ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        content.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// The permissions a plain open() would give a new file: 0666 less the umask.
// mkstemp makes its file private (0600); a results folder is shared the way
// the user's other files are. The umask is read from /proc rather than set and
// restored, which would race with other threads creating files.
mode_t usual_file_mode() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("Umask:", 0) == 0) return 0666 & ~static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    return 0644;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, std::string_view content) {
    std::error_code ec;
    const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
    std::filesystem::create_directories(folder, ec);
    if (ec) cannot_write(file, ec.message());

    // A dot name, so that nobody mistakes a leftover from a crash for a result.
    std::string temp = (folder / ("." + file.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) cannot_write(file, std::strerror(errno));
    const bool written = ::fchmod(fd, usual_file_mode()) == 0 && write_all(fd, content) && ::fsync(fd) == 0;
    const int saved_errno = errno;
    ::close(fd);
    if (!written) {
        ::unlink(temp.c_str());
        cannot_write(file, std::strerror(saved_errno));
    }
    std::filesystem::rename(temp, file, ec);
    if (ec) {
        ::unlink(temp.c_str());
        cannot_write(file, ec.message());
    }
}

}  // namespace grader
