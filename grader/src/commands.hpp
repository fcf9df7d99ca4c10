#pragma once
// The grader's subcommands. Each returns one of the exit codes in exit_codes.hpp.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

struct common_args {
    std::optional<std::filesystem::path> build_dir;
};

struct run_args {
    std::string lesson;
    bool solution = false;
    std::string mutant;               // a known-wrong version from grader/mutants
    std::string format = "text";      // text, json, gradescope, junit
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

int cmd_list(const common_args& common);
int cmd_verify(const common_args& common, const verify_args& args);
int cmd_run(const common_args& common, const run_args& args);
int cmd_hint(const common_args& common, const std::string& lesson, bool all);

// hints.md: one "## Title" section per hint, gentlest first.
struct hint {
    std::string title, text;
};
std::vector<hint> parse_hints(const std::string& markdown);
int cmd_doctor(const common_args& common);

}  // namespace grader
