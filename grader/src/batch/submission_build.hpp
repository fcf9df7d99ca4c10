#pragma once
// Building one submission of a batch. Only what depends on the submission is
// compiled: the student's files, in a scratch folder of the submission's own,
// then the link. Everything else the test program needs (the graded tests'
// objects, the course's libraries) is reused from the course's build. The
// commands are CMake's own, as Ninja runs them for the lesson's exercise
// (`ninja -t commands lessonNN_exercise_tests`), with the exercise's paths
// replaced by the scratch folder's: what compiles for `grader run` compiles
// here with the same flags.
//
// Scratch folder layout:
//   src/     the student's files (the skeleton's where one is missing)
//   build/   objects, the submission's library, the test program
//   logs/    the graded run's logs and evidence
//   build.log
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checkout/build.hpp"
#include "checkout/manifest.hpp"
#include "run/sandbox.hpp"

namespace grader {

namespace fs = std::filesystem;

// Builds the course's own test programs of the lesson (the exercise's, whose
// objects every submission's build reuses, and the solution's: the judge),
// saying so on stdout. Throws user_error (build_error) when the course itself
// does not build: then no submission could be graded.
void build_course_for_batch(const manifest& m, const lesson_info& lesson);

struct submission_recipe {
    fs::path build_dir;                      // the commands run here
    // Shell command lines; @SCRATCH@ stands for the scratch folder.
    std::vector<std::string> compile;        // one per source: independent of each other
    std::vector<std::string> link;           // then, in order: the library, the program
    std::map<std::string, std::string> generated;  // build/<name> -> content (@SCRATCH@ replaced): sources
                                                   // CMake generated for the exercise's test program
    std::vector<fs::path> reads;             // what the commands read in the build folder (shown in the sandbox)
    fs::path source_dir;                     // the course (its headers), shown even under a private /tmp
    fs::path toolkit_dir;                    // the CUDA toolkit (nvcc, its headers), shown likewise
    std::vector<std::string> sources;        // the lesson's source files, written to src/
};

// Throws user_error when the build folder was not made by Ninja or its
// commands are not the shape CMake gives them (say what and how to fix it).
submission_recipe derive_submission_recipe(const manifest& m, const lesson_info& lesson);

// Where a scratch folder's build puts the test program and the student's library.
fs::path submission_program(const fs::path& scratch);
fs::path submission_library(const fs::path& scratch);

struct build_limits {
    std::chrono::seconds time{300};
    long long max_file_bytes = 1LL << 30;
    long long max_data_bytes = 8LL << 30;
    long long max_processes = 512;
    // Builds run ahead of the graders (half the CPUs or --jobs of them, each
    // compiling its files at once), and a graded run's tests must not wait
    // for the CPU behind a build it does not need yet: on an H200 machine's
    // 16 cores, lesson07's class of 20 kept them 97 to 100% busy for its
    // first 14 s. At niceness 5 a build gets a quarter of a CPU a grader's
    // process wants, and all of one nobody wants.
    int niceness = 5;
};

// Writes `files` (file name -> content; the lesson's sources only) into
// scratch/src, then runs the recipe there: inside bubblewrap where `bwrap`
// is given, with only the scratch folder writable, no network, and
// `hidden` (the solutions, other submissions) not visible.
build_result build_submission(const submission_recipe& recipe, const fs::path& scratch,
                              const std::map<std::string, std::string>& files,
                              const std::optional<fs::path>& bwrap, const std::vector<fs::path>& hidden,
                              const build_limits& limits);

}  // namespace grader
