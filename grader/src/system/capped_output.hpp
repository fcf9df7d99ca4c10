#pragma once
// A child's output, kept within bounds. The child writes its stdout and
// stderr into a pipe; a thread of the grader's reads it as it comes and
// keeps the first `keep` bytes (written to the log at once) and the last
// `keep` bytes (in a ring, written at the end), and counts what lies between.
// So a program that prints gigabytes is neither killed for it nor held up,
// the grader's memory stays `keep` bytes, and the log ends with the
// program's last words, after a note of how much was left out:
//
//   ...the first 64 KiB...
//   [grader: 3,221,094,400 bytes of output left out here; the first and last 64 KiB are kept]
//   ...the last 64 KiB...
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace grader {

class capped_output {
public:
    // Opens (truncates) `log` and makes the pipe. Throws when it cannot.
    capped_output(const std::filesystem::path& log, std::size_t keep);
    ~capped_output();
    capped_output(const capped_output&) = delete;
    capped_output& operator=(const capped_output&) = delete;

    // The pipe's end for the child's stdout and stderr (close-on-exec: dup2
    // it onto 1 and 2).
    int write_end() const { return write_fd_; }
    // In the grader, once the child holds its copy: closes the grader's
    // copy of the write end, so the pipe ends when the child's writers do,
    // and starts reading.
    void start();
    // Once the child has ended: reads what is still in the pipe, for at most
    // `grace` (a process the child left behind may hold it open), then
    // writes the note and the kept tail. Only the first call does anything.
    void finish(std::chrono::milliseconds grace);

    std::uint64_t total_bytes() const { return total_; }
    std::uint64_t dropped_bytes() const { return dropped_; }

private:
    void read_until_end();
    void keep_bytes(const char* data, std::size_t size);

    std::size_t keep_;
    int read_fd_ = -1, write_fd_ = -1, log_fd_ = -1;
    std::thread reader_;
    std::atomic<std::int64_t> stop_at_ns_{0};  // steady clock; 0: read until the pipe ends
    bool finished_ = false;
    // Written by the reader only, read once it has been joined.
    std::uint64_t total_ = 0, dropped_ = 0;
    std::size_t head_ = 0;          // bytes of the head written so far
    std::vector<char> ring_;        // the tail, circular
    std::size_t ring_next_ = 0;     // where the next tail byte goes
    std::uint64_t ring_filled_ = 0; // tail bytes ever written into the ring
};

}  // namespace grader
