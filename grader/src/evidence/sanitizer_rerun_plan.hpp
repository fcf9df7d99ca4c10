#pragma once
// Which compute-sanitizer reruns a run's failures get (sanitizer_evidence):
// each rerun is a whole test slowed 10 to 100 times, and most failing tests
// of one submission fail for one reason, so a tool's answer in one test
// stands for the later ones:
//   - a tool that found nothing in one failing test is not run on the rest
//     (the mistake is one it cannot see: a wrong formula, an index that stays
//     in bounds);
//   - a kernel a tool has named is left out of that tool's later reruns
//     (compute-sanitizer's kernel filter), which still check every other
//     kernel;
//   - once any tool has found something, the tools that found nothing yet
//     are not tried on later tests: what was found is the first thing to fix.
// A later test that is not rerun, or is rerun without the named kernel, is
// told where the finding was seen. With --sanitize (every test, passing ones
// too) nothing is spared: every test gets every tool it needs.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evidence/sanitizer.hpp"

namespace grader {

class rerun_plan {
public:
    explicit rerun_plan(bool every_test) : every_test_(every_test) {}

    // Whether `test` is rerun under `tool` (asked in the tools' order).
    bool runs(sanitizer_tool tool, const std::string& test);
    // The kernels `tool` no longer checks (compute-sanitizer's filter names).
    std::vector<std::string> kernels_not_checked(sanitizer_tool tool) const;

    void found(sanitizer_tool tool, const std::string& test, const std::string& kernel, const std::string& message);
    void found_nothing(sanitizer_tool tool, const std::string& test);

    // For a failing test with no finding of its own: the run's first finding
    // and where it was seen, if it was seen in another test.
    std::optional<std::string> earlier_finding(const std::string& test) const;
    // The note saying which reruns were spared and why; empty if none was.
    std::string what_was_spared() const;

private:
    struct finding {
        sanitizer_tool tool;
        std::string test, kernel, message;
    };
    struct nothing_found {
        sanitizer_tool tool;
        std::string test;
    };
    const finding* finding_of(sanitizer_tool tool) const;
    const nothing_found* nothing_found_by(sanitizer_tool tool) const;

    bool every_test_;
    std::vector<finding> findings_;
    std::vector<nothing_found> clean_;
    std::vector<std::string> spared_;  // tests a tool was not run on, in order
};

}  // namespace grader
