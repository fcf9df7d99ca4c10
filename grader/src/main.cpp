// grader: builds and grades the course's CUDA exercises.
//   grader list | run LESSON | hint LESSON | verify [LESSON...] | doctor
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"
#include "context.hpp"
#include "exit_codes.hpp"

int main(int argc, char** argv) {
    using namespace grader;
    CLI::App app{"grader: builds and grades the CUDA course's exercises.\n"
                 "A lesson can be named lesson01, 1 or vecadd.",
                 "grader"};
    app.footer(exit_code_help);
    app.require_subcommand(1);

    common_args common;
    app.add_option("--build-dir", common.build_dir,
                   "the build folder (default: found from this program or the current folder)");

    auto* list = app.add_subcommand("list", "the lessons, with your best score in each");

    run_args run;
    auto* run_cmd = app.add_subcommand("run", "build a lesson's exercise and grade it");
    run_cmd->add_option("lesson", run.lesson, "lesson01, 1 or vecadd")->required();
    run_cmd->add_flag("--solution", run.solution, "grade the reference solution instead");
    run_cmd->add_option("--mutant", run.mutant, "grade a known-wrong version (grader/mutants)");
    run_cmd->add_option("--format", run.format, "report format")
        ->check(CLI::IsMember({"text", "json", "gradescope", "junit"}));
    run_cmd->add_option("-o,--output", run.output, "write the report in --format to this file (the terminal still gets text)");
    run_cmd->add_option("--seed", run.seed, "seed for the random inputs (printed by every run)");
    run_cmd->add_option("--timeout", run.timeout_s, "seconds a single test may run before it is stopped")
        ->check(CLI::Range(1, 3600));
    run_cmd->add_flag("!--no-build", run.build, "grade what is already built");
    run_cmd->add_option("--test", run.tests, "grade only this test id (repeatable), e.g. VecAdd.Large");

    std::string hint_lesson;
    bool all_hints = false;
    auto* hint = app.add_subcommand("hint", "the next hint for a lesson, one at a time");
    hint->add_option("lesson", hint_lesson, "lesson01, 1 or vecadd")->required();
    hint->add_flag("--all", all_hints, "show every hint seen so far again");

    verify_args verify;
    auto* verify_cmd = app.add_subcommand(
        "verify", "instructors: solutions get full marks, skeletons lose, known-wrong versions are caught");
    verify_cmd->add_option("lessons", verify.lessons, "lessons to verify (default: all)");
    verify_cmd->add_option("--seed", verify.seed, "seed for the random inputs");
    verify_cmd->add_option("--timeout", verify.timeout_s, "seconds a single test may run")->check(CLI::Range(1, 3600));
    verify_cmd->add_flag("!--no-build", verify.build, "verify what is already built");

    auto* doctor = app.add_subcommand("doctor", "check the GPU, driver, toolkit and build folder");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? all_passed : usage_error;
    }

    try {
        if (*list) return cmd_list(common);
        if (*run_cmd) return cmd_run(common, run);
        if (*hint) return cmd_hint(common, hint_lesson, all_hints);
        if (*doctor) return cmd_doctor(common);
        if (*verify_cmd) return cmd_verify(common, verify);
    } catch (const user_error& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return e.code;
    } catch (const std::exception& e) {
        std::cerr << "grader: " << e.what() << "\n";
        return build_error;
    }
    return usage_error;
}
