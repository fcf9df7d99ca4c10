#include "system/capped_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace grader {

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // a full disk loses the log, not the grade
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

std::string with_commas(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace

capped_output::capped_output(const std::filesystem::path& log, std::size_t keep) : keep_(keep), ring_(keep) {
    log_fd_ = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd_ < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", log.string(), std::strerror(errno)));
    int fds[2] = {-1, -1};
    if (pipe2(fds, O_CLOEXEC) != 0) {
        ::close(log_fd_);
        throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    }
    read_fd_ = fds[0];
    write_fd_ = fds[1];
}

capped_output::~capped_output() {
    finish(std::chrono::milliseconds(0));
    if (write_fd_ >= 0) ::close(write_fd_);
}

void capped_output::start() {
    ::close(write_fd_);
    write_fd_ = -1;
    reader_ = std::thread([this] { read_until_end(); });
}

void capped_output::keep_bytes(const char* data, std::size_t size) {
    total_ += size;
    if (head_ < keep_) {
        const std::size_t to_head = std::min(size, keep_ - head_);
        write_all(log_fd_, data, to_head);
        head_ += to_head;
        data += to_head;
        size -= to_head;
    }
    if (keep_ == 0) return;
    // Only the last keep_ bytes of a large write can survive in the ring.
    if (size > keep_) {
        data += size - keep_;
        ring_filled_ += size - keep_;
        size = keep_;
    }
    // At most two pieces: up to the ring's end, then from its start.
    const std::size_t first_piece = std::min(size, keep_ - ring_next_);
    std::memcpy(ring_.data() + ring_next_, data, first_piece);
    std::memcpy(ring_.data(), data + first_piece, size - first_piece);
    ring_next_ = (ring_next_ + size) % keep_;
    ring_filled_ += size;
}

void capped_output::read_until_end() {
    std::vector<char> chunk(64 * 1024);
    for (;;) {
        const std::int64_t stop_at = stop_at_ns_.load();
        int wait_ms = 100;
        if (stop_at != 0) {
            const std::int64_t left = (stop_at - now_ns()) / 1'000'000;
            if (left <= 0) return;
            wait_ms = static_cast<int>(std::min<std::int64_t>(left, 100));
        }
        pollfd p{read_fd_, POLLIN, 0};
        const int ready = poll(&p, 1, wait_ms);
        if (ready < 0 && errno != EINTR) return;
        if (ready <= 0) continue;
        const ssize_t got = ::read(read_fd_, chunk.data(), chunk.size());
        if (got == 0) return;  // every writer has closed its end
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return;
        }
        keep_bytes(chunk.data(), static_cast<std::size_t>(got));
    }
}

void capped_output::finish(std::chrono::milliseconds grace) {
    if (finished_) return;
    finished_ = true;
    stop_at_ns_ = now_ns() + std::chrono::duration_cast<std::chrono::nanoseconds>(grace).count() + 1;
    if (reader_.joinable()) reader_.join();
    ::close(read_fd_);
    read_fd_ = -1;

    const std::size_t tail = static_cast<std::size_t>(std::min<std::uint64_t>(ring_filled_, keep_));
    dropped_ = ring_filled_ - tail;
    if (dropped_ > 0) {
        const std::string note =
            fmt::format("\n[grader: {} bytes of output left out here; the first and last {} are kept]\n",
                        with_commas(dropped_),
                        keep_ % 1024 == 0 ? fmt::format("{} KiB", keep_ / 1024) : fmt::format("{} bytes", keep_));
        write_all(log_fd_, note.data(), note.size());
    }
    // The ring's oldest byte is at ring_next_ once it has wrapped.
    const std::size_t first = ring_filled_ >= keep_ ? ring_next_ : 0;
    const std::size_t first_piece = std::min(tail, keep_ - first);
    write_all(log_fd_, ring_.data() + first, first_piece);
    write_all(log_fd_, ring_.data(), tail - first_piece);
    ::close(log_fd_);
    log_fd_ = -1;
}

}  // namespace grader
