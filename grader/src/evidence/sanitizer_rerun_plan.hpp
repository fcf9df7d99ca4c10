#pragma once
// Which compute-sanitizer reruns a run's failures get (sanitizer_evidence):
// each rerun is a whole test slowed 10 to 100 times, and most failing tests
// of one submission fail for one reason, so the tools' answers in some
// tests stand for the rest:
//   - a tool that found nothing in two failing tests is not run on the rest:
//     the mistake is one it cannot see (a wrong formula, an index that stays
//     in bounds). Two, not one: memcheck sees only accesses outside every
//     allocation, so a test whose stray read lands in its array's own
//     slack looks clean, and the next one may not;
//   - once a tool has found something in a test, the later failing tests
//     of the same suite (VecAdd.*: the tests of one function, so of its
//     kernels) are not rerun, and are told where it was seen; the tests of
//     other suites still are.
//   - a tool with nothing to look at in the program's kernels (racecheck
//     where no instruction may touch shared memory, synccheck where none
//     synchronizes: kernel_instructions.hpp) is not run at all.
// With --sanitize (every test, passing ones too) nothing is spared.
#include <optional>
#include <string>
#include <vector>

#include "evidence/sanitizer.hpp"

namespace grader {

// A test's suite: "VecAdd.PartialLastBlock" -> "VecAdd" (the tests of one
// function, so of its kernels).
std::string suite_of(const std::string& test);

class rerun_plan {
public:
    explicit rerun_plan(bool every_test) : every_test_(every_test) {}

    // Whether `test` is rerun under `tool` (asked in the tools' order).
    bool runs(sanitizer_tool tool, const std::string& test);

    // `seen_in`: where the tool found it, where not in `test` itself (a
    // quicker passing test of the same suite, rerun in its place).
    void found(sanitizer_tool tool, const std::string& test, const std::string& message,
               const std::string& seen_in = {});
    void found_nothing(sanitizer_tool tool, const std::string& test);
    // `tool` has nothing to look at in this program: it is not run.
    void nothing_to_look_at(sanitizer_tool tool);

    // What a failing test's messages say of a finding seen in a quicker
    // passing test of its suite.
    static std::string seen_in_quicker_test(const std::string& quicker, const std::string& message);
    // For a failing test with no finding of its own: the first finding in
    // another test of its suite, and where it was seen.
    std::optional<std::string> earlier_finding(const std::string& test) const;
    // The note saying which reruns were spared and why; empty if none was
    // (a tool with nothing to look at is said apart: why_not_run).
    std::string what_was_spared() const;
    // Which tools had nothing to look at, and why ("racecheck was not run:
    // ..."), for the end of the spared note; empty if none.
    std::string why_not_run() const;

    // A tool is not run again once it has found nothing in this many tests.
    static constexpr int clean_tests_per_tool = 2;

private:
    struct outcome {
        sanitizer_tool tool;
        std::string test;
        std::string message;  // empty: found nothing
        std::string seen_in;  // empty: in `test` itself
    };
    const outcome* finding_in_suite_of(const std::string& test) const;
    std::vector<std::string> clean_tests(sanitizer_tool tool) const;  // where it found nothing, in order

    bool every_test_;
    std::vector<outcome> outcomes_;
    std::vector<std::string> spared_;  // tests a tool was not run on, in order
    std::vector<sanitizer_tool> blind_;  // tools with nothing to look at
};

}  // namespace grader
