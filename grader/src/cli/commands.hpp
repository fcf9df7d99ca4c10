#pragma once
// The grader's subcommands. Each returns one of the exit codes in exit_codes.hpp.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/options.hpp"
#include "checkout/context.hpp"

namespace grader {

struct run_args {
    std::string lesson;
    bool solution = false;
    std::string mutant;               // a known-wrong version from grader/mutants
    std::string cheat;                // a known cheat from grader/cheats
    std::string textbook;             // a known-right textbook form from grader/textbooks
    bool sandbox = false;             // hide the course's secrets from the tests (sandbox.hpp); refuses without bubblewrap
    bool no_sandbox = false;          // a graded run knowingly without it: the report says NOT SANDBOXED
    bool sanitize = false;            // every GPU test under compute-sanitizer (sanitizer_evidence.hpp)
    bool profile = false;             // every speed test under Nsight Compute (profile_evidence.hpp)
    bool timeline = false;            // draw each timed test's streams from the GPU's record (run_timeline.hpp)
    bool timings = false;             // where the run's seconds went (step_timings.hpp), after the report
    std::string format = "text";      // text, json, gradescope, junit
    bool verbose = false;             // text: every test with its own messages (the short view groups them)
    std::optional<std::filesystem::path> output;
    std::optional<unsigned long long> seed;
    int timeout_s = 60;               // per test
    bool build = true;
    std::vector<std::string> tests;   // only these test ids
};

struct verify_args {
    std::vector<std::string> lessons;  // empty: every lesson
    unsigned long long seed = 1;
    int timeout_s = 30;
    bool build = true;
};

struct bench_args {
    std::string lesson;
    std::vector<std::string> impls = {"exercise", "baseline"};  // exercise, solution, baseline
    std::vector<std::string> sizes;        // "1e8", "2^28": only these problem sizes
    std::vector<std::string> block_sizes;  // only these threads per block
    std::string filter;                    // a regular expression on benchmark names
    bool vs_cpu = false;                   // only "When does the GPU win?" (BM_when/...): CPU against GPU
    int repetitions = 3;
    double min_time_s = 0.1;               // per repetition
    int timeout_s = 1800;                  // per benchmark program
    std::optional<std::filesystem::path> output;
    bool build = true;
};

struct plot_args {
    std::filesystem::path input;           // a `grader bench` file
    std::optional<std::filesystem::path> output;  // .png, .svg or .pdf
    std::string kind = "auto";             // time, bandwidth, gflops, speedup, timeline
    std::vector<std::string> families;     // only these benchmark families
    std::string baseline;                  // speedup: relative to this family
};

struct release_args {
    std::filesystem::path output;   // a new folder: the edition's repository
    std::string commit = "HEAD";    // the revision released
    std::string repo_url;           // the edition's clone address (--repo-url); empty: placeholders left
};

int cmd_list(const common_args& common);
// `grader list LESSON`: the lesson's test ids (what --test takes), points and titles.
int cmd_list_tests(const common_args& common, const std::string& lesson);
int cmd_release(const common_args& common, const release_args& args);
// For instructors' commands (verify, batch, release): a usage error, saying
// why, in the student edition, which has no solutions to grade with.
void refuse_in_student_edition(const manifest& m, const std::string& command);
int cmd_bench(const common_args& common, const bench_args& args);
int cmd_plot(const common_args& common, const plot_args& args);
int cmd_verify(const common_args& common, const verify_args& args);
int cmd_run(const common_args& common, const run_args& args);
// `how_to_get_more` replaces "run `grader hint LESSON` again" (watch says "press h").
int cmd_hint(const common_args& common, const std::string& lesson, bool all,
             const std::string& how_to_get_more = "");

// hints.md: one "## Title" section per hint, gentlest first.
struct hint {
    std::string title, text;
};
std::vector<hint> parse_hints(const std::string& markdown);
// "lesson01 hint 2 of 6", and the hint's title after it where it says more
// than "Hint 2": the heading `grader hint` prints above hint `index` (from 0).
std::string hint_heading(const std::string& lesson_id, std::size_t index, std::size_t count, const std::string& title);
// `grading`: also what a graded run and a batch need (run/grading_needs.hpp).
int cmd_doctor(const common_args& common, bool grading = false);

struct watch_args {
    std::string lesson;                       // empty: the first lesson without full marks
    bool manual = false;                      // no polling: Enter regrades (WSL, network mounts)
    std::optional<unsigned long long> seed;   // fixed inputs for every regrade
    int timeout_s = 60;                       // per test
};
int cmd_watch(const common_args& common, const watch_args& args);

struct reset_args {
    std::string lesson;
    bool dry_run = false;  // say what would happen, change nothing
    bool yes = false;      // do not ask, even on a terminal
};
int cmd_reset(const common_args& common, const reset_args& args);

int cmd_batch(const common_args& common, const batch_args& args);

}  // namespace grader
