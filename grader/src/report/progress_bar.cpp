#include "report/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace grader {

std::string minutes_and_seconds(double s) {
    const int whole = static_cast<int>(s + 0.5);
    return whole >= 60 ? fmt::format("{}m{:02}s", whole / 60, whole % 60) : fmt::format("{}s", whole);
}

progress_bar::progress_bar(std::string label, int total, std::FILE* out, std::string unit)
    : label_(std::move(label)), total_(std::max(total, 1)), out_(out), terminal_(isatty(fileno(out)) != 0) {
    if (!terminal_) fmt::print(out_, "{}: {} {}...\n", label_, total, unit);
    std::fflush(out_);
}

progress_bar::~progress_bar() {
    if (terminal_) fmt::print(out_, "\n");
    std::fflush(out_);
}

void progress_bar::update(int done, const std::string& current) {
    if (!terminal_) return;
    constexpr int width = 30;
    const int filled = std::clamp(done * width / total_, 0, width);
    std::string text = current.size() > 60 ? current.substr(0, 57) + "..." : current;
    // \r returns to the line's start; \x1b[K clears what a longer line left.
    fmt::print(out_, "\r{} [{}{}] {}/{} {}\x1b[K", label_, std::string(filled, '#'), std::string(width - filled, '-'),
               done, total_, text);
    std::fflush(out_);
}

}  // namespace grader
