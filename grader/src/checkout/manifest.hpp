#pragma once
// What the build knows about the course: build/course_manifest.json, written
// by CMake (cmake/CourseLesson.cmake) at configure time.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader {

namespace fs = std::filesystem;

struct variant_info {
    fs::path source_dir;     // exercises/NN_name, solutions/NN_name, or for a mutant
                             // build/mutants/NN_name/<name>: the patched solution
                             // and its expect.json (cmake/CourseMutant.cmake)
    std::string tests_target;
    fs::path tests;          // the graded-test program
    fs::path library;        // the implementation library it links (the student's code, compiled)
    std::string bench_target;
    fs::path bench;
};

struct lesson_info {
    std::string id;      // "lesson01"
    int number = 0;      // 1
    std::string dir;     // "01_vecadd"
    std::string slug;    // "vecadd"
    std::string title;   // "vector addition"
    std::vector<std::string> aliases;
    fs::path lesson_dir;
    std::vector<std::string> sources;
    std::vector<std::string> baselines;  // benchmark names (prefixes) that measure a reference, not the lesson's code
    std::vector<std::string> withheld;   // benchmark names (prefixes) whose code this edition leaves out
    std::map<std::string, variant_info> variants;  // "exercise", "solution", "mutant_<name>", "cheat_<name>", "textbook_<name>"

    const variant_info* variant(const std::string& name) const;
    std::vector<std::string> mutants() const;  // names without the "mutant_" prefix
    std::vector<std::string> cheats() const;   // names without the "cheat_" prefix
    std::vector<std::string> textbooks() const;  // names without the "textbook_" prefix
};

struct manifest {
    fs::path source_dir, build_dir, cmake;
    std::string cuda_compiler, cuda_compiler_version, cuda_architectures;
    // The grader's GPU recorder (grader/recorder): where the timed tests'
    // record of the GPU's work comes from. Empty where CUPTI was not found.
    fs::path gpu_recorder;
    // course-threads-only (grader/threads_only): graded runs start the
    // student's program under it. Empty where libseccomp was not found.
    fs::path threads_only_launcher;
    // "instructor" (solutions, known-wrong versions) or "student" (what
    // `grader release` writes: no solutions; grades are practice grades).
    std::string edition = "instructor";
    std::vector<lesson_info> lessons;

    bool student_edition() const { return edition == "student"; }

    // "lesson05", "5", "05", "streams", "05_streams" all name lesson05.
    const lesson_info* find(const std::string& name) const;
    // "lesson01 (vecadd), lesson02 (doublify), ..." for error messages.
    std::string valid_names() const;
    // The CUDA toolkit the build uses: the folder above its nvcc's bin/
    // (links followed), or empty. A sandbox keeps it visible, so that a
    // toolkit unpacked under /tmp or a home folder still compiles and its
    // shared libraries (libcudart.so.12, libnvrtc) still load.
    fs::path cuda_toolkit_dir() const;
};

manifest parse_manifest(const std::string& json_text);
manifest load_manifest(const fs::path& build_dir);

// Where the build folder is: --build-dir, then $COURSE_BUILD_DIR, then the
// folder above this program (build/bin/grader), then ./build and the build
// folders of the directories above the current one.
std::optional<fs::path> find_build_dir(const std::optional<fs::path>& explicit_dir);

}  // namespace grader
