// A child's output kept within bounds (system/capped_output.hpp): the first
// and last bytes in the log, a note of what was left out, and a child that
// prints without end is never held up or killed for it.
#include <gtest/gtest.h>

#include <chrono>

#include "course/temp_dir.hpp"
#include "system/process.hpp"

namespace grader {
namespace {

// Runs `script` with sh, keeping `keep` bytes at each end of its output.
std::string kept_output(const std::string& script, std::size_t keep, exit_status* status = nullptr) {
    course::temp_dir dir("grader-capped-output-test");
    child_process::options options;
    options.argv = {"/bin/sh", "-c", script};
    options.output = dir / "out.log";
    options.keep_output_bytes = keep;
    child_process child(options);
    const exit_status ended = child.wait();
    if (status) *status = ended;
    return file_text(dir / "out.log");
}

}  // namespace

TEST(CappedOutput, ShortOutputIsKeptWhole) {
    EXPECT_EQ(kept_output("echo hello; echo world >&2", 64), "hello\nworld\n");
}

TEST(CappedOutput, KeepsTheFirstAndLastBytesAndSaysWhatWasLeftOut) {
    // 16 kept at each end of 26 + 10 + 26 bytes: 30 left out between.
    const std::string text = kept_output("printf abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", 16);
    EXPECT_EQ(text,
              "abcdefghijklmnop"
              "\n[grader: 30 bytes of output left out here; the first and last 16 bytes are kept]\n"
              "KLMNOPQRSTUVWXYZ");
}

TEST(CappedOutput, AFloodIsReadToItsEndWithoutKillingTheChild) {
    // 256 MiB through the pipe, the log holds 2 x 64 KiB and a note.
    exit_status status;
    const std::string text =
        kept_output("head -c 268435456 /dev/zero | tr '\\0' x; echo; echo the last words", 64 * 1024, &status);
    EXPECT_FALSE(status.signaled) << status.describe();
    EXPECT_EQ(status.code, 0);
    EXPECT_LT(text.size(), 132u * 1024);
    EXPECT_NE(text.find("[grader: 268,304,400 bytes of output left out here; the first and last 64 KiB are kept]"),
              std::string::npos)
        << text.substr(64 * 1024, 200);
    EXPECT_EQ(text.substr(text.size() - 15), "the last words\n");
}

TEST(CappedOutput, AProcessLeftBehindDoesNotHoldTheGraderUp) {
    // The child ends at once; the sleeper it started keeps the pipe open.
    const auto start = std::chrono::steady_clock::now();
    const std::string text = kept_output("sleep 30 & echo started", 64);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(text, "started\n");
}

}  // namespace grader
