#pragma once
// A one-line progress bar on a terminal ("solution [#######-----] 12/30 vecadd
// n=2^24"), redrawn in place; on anything else (a log, CI) a plain line at the
// start and at the end, so logs stay readable.
#include <cstdio>
#include <string>

namespace grader {

// A duration for a progress line: "45s", "3m07s".
std::string minutes_and_seconds(double seconds);

class progress_bar {
public:
    // `unit` names what is counted, in the plain line: "benchmarks", "submissions".
    progress_bar(std::string label, int total, std::FILE* out = stderr, std::string unit = "benchmarks");
    bool on_terminal() const { return terminal_; }
    ~progress_bar();  // ends the line
    progress_bar(const progress_bar&) = delete;
    progress_bar& operator=(const progress_bar&) = delete;

    void update(int done, const std::string& current);

private:
    std::string label_;
    int total_;
    std::FILE* out_;
    bool terminal_;
};

}  // namespace grader
