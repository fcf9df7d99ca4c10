#include "batch/submission_build.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>

#include "checkout/context.hpp"
#include "evidence/device_code.hpp"
#include "system/process.hpp"
#include "system/shell_quote.hpp"

namespace grader {

namespace {

const std::string scratch_mark = "@SCRATCH@";

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

std::vector<std::string> words_of(const std::string& command) {
    std::istringstream in(command);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

// The word after `flag` ("-o out.o" -> "out.o"), or empty.
std::string word_after(const std::vector<std::string>& words, const std::string& flag) {
    for (std::size_t i = 0; i + 1 < words.size(); ++i)
        if (words[i] == flag) return words[i + 1];
    return {};
}

bool contains(const std::vector<std::string>& words, const std::string& word) {
    return std::find(words.begin(), words.end(), word) != words.end();
}

std::string not_derivable(const lesson_info& lesson, const std::string& what) {
    return fmt::format(
        "grader batch cannot build {}'s submissions from this build folder: {}. It reuses the commands CMake "
        "wrote for Ninja; configure the course with a preset (`cmake --preset default`, which uses Ninja) "
        "and build it once (`cmake --build --preset default`).",
        lesson.id, what);
}

// Files and folders of the build folder that a command names (objects,
// libraries, include folders), which the sandbox must show.
void collect_reads(const std::string& command, const fs::path& build_dir, std::set<fs::path>& reads) {
    static const char* prefixes[] = {"-I", "-isystem=", "-L", "-Wl,-rpath,"};
    for (std::string word : words_of(command)) {
        for (const char* prefix : prefixes)
            if (word.rfind(prefix, 0) == 0) word.erase(0, std::string(prefix).size());
        if (word.empty() || word.find(scratch_mark) != std::string::npos || word.front() == '-') continue;
        const fs::path path = fs::path(word).is_absolute() ? fs::path(word) : build_dir / word;
        const auto normal = path.lexically_normal();
        const auto rel = normal.lexically_relative(build_dir);
        if (rel.empty() || *rel.begin() == "..") continue;
        std::error_code ec;
        if (fs::exists(normal, ec)) reads.insert(normal);
    }
}

// The Ninja CMake configured the build with (CMakeCache.txt), else `ninja` on PATH.
std::string ninja_program(const fs::path& build_dir) {
    std::istringstream cache(file_text(build_dir / "CMakeCache.txt"));
    const std::string key = "CMAKE_MAKE_PROGRAM:FILEPATH=";
    for (std::string line; std::getline(cache, line);)
        if (line.rfind(key, 0) == 0) return line.substr(key.size());
    return "/usr/bin/ninja";
}

}  // namespace

fs::path submission_program(const fs::path& scratch) { return scratch / "build" / "tests"; }
fs::path submission_library(const fs::path& scratch) { return scratch / "build" / "libsubmission.a"; }

void build_course_for_batch(const manifest& m, const lesson_info& lesson) {
    std::cout << fmt::format("building the course's {} tests and judge...\n", lesson.id) << std::flush;
    const build_result built =
        build_targets(m, {lesson.variant("exercise")->tests_target, lesson.variant("solution")->tests_target});
    if (!built.ok)
        throw user_error(build_error, fmt::format("the course itself does not build, so no submission can be "
                                                  "graded: {}\n  full log: {}",
                                                  built.digest, built.log.string()));
}

submission_recipe derive_submission_recipe(const manifest& m, const lesson_info& lesson) {
    const variant_info* exercise = lesson.variant("exercise");
    if (!exercise) throw user_error(build_error, not_derivable(lesson, "it has no exercise build"));
    submission_recipe recipe;
    recipe.build_dir = m.build_dir;
    recipe.source_dir = m.source_dir;
    recipe.toolkit_dir = m.cuda_toolkit_dir();
    recipe.sources = lesson.sources;
    if (!fs::exists(m.build_dir / "build.ninja"))
        throw user_error(build_error, not_derivable(lesson, "it has no build.ninja (another CMake generator made it)"));

    // A file of this process's own, outside the build folder: the tasks of a
    // cluster job derive the recipe at the same time from one shared build
    // folder, which they only read.
    const fs::path listing = fs::temp_directory_path() / fmt::format("grader-batch-{}-commands-{}.txt", lesson.id, getpid());
    const exit_status status =
        run_command({ninja_program(m.build_dir), "-C", m.build_dir.string(), "-t", "commands", exercise->tests_target}, listing);
    if (status.signaled || status.code != 0)
        throw user_error(build_error,
                         not_derivable(lesson, fmt::format("`ninja -t commands` failed ({}): {}", status.describe(),
                                                           tail_of_file(listing, 3))));

    const std::string library_rel = exercise->library.lexically_relative(m.build_dir).string();
    const std::string program_rel = exercise->tests.lexically_relative(m.build_dir).string();
    const std::string program_objects = "CMakeFiles/" + exercise->tests_target + ".dir/";
    std::map<std::string, std::string> renames;  // build-folder path -> scratch path, objects first
    std::vector<std::pair<std::string, bool>> chosen;  // command, compiles (may run beside the others)
    int compiled = 0;
    bool archived = false, linked = false;

    std::istringstream lines(file_text(listing));
    for (std::string command; std::getline(lines, command);) {
        const auto words = words_of(command);
        const std::string object = word_after(words, "-o");
        const bool compiles = contains(words, "-c") && !object.empty();
        if (compiles) {
            // The student's own files.
            const auto source = std::find_if(lesson.sources.begin(), lesson.sources.end(), [&](const std::string& s) {
                return contains(words, (exercise->source_dir / s).string());
            });
            if (source != lesson.sources.end()) {
                renames[object] = scratch_mark + "/build/" + *source + ".o";
                renames[(exercise->source_dir / *source).string()] = scratch_mark + "/src/" + *source;
                chosen.emplace_back(command, true);
                ++compiled;
                continue;
            }
            // A source CMake generated for this test program alone: where it
            // names the exercise's library, the submission gets its own copy
            // naming the submission's.
            if (object.find(program_objects) != std::string::npos) {
                const auto generated = std::find_if(words.begin(), words.end(), [&](const std::string& w) {
                    return fs::path(w).is_absolute() && w.rfind(m.build_dir.string(), 0) == 0 &&
                           (w.ends_with(".cpp") || w.ends_with(".cu") || w.ends_with(".c"));
                });
                if (generated == words.end()) continue;
                std::string content = file_text(*generated);
                if (content.find(exercise->library.string()) == std::string::npos) continue;  // the same for all: reuse
                const std::string name = fs::path(*generated).filename().string();
                replace_all(content, exercise->library.string(), scratch_mark + "/build/libsubmission.a");
                recipe.generated["gen_" + name] = content;
                renames[object] = scratch_mark + "/build/gen_" + name + ".o";
                renames[*generated] = scratch_mark + "/build/gen_" + name;
                chosen.emplace_back(command, true);
            }
            continue;
        }
        if (contains(words, library_rel) && !contains(words, program_rel)) {
            archived = true;
            chosen.emplace_back(command, false);
        } else if (object == program_rel) {
            linked = true;
            chosen.emplace_back(command, false);
        }
    }
    std::error_code ec;
    fs::remove(listing, ec);
    const int expected = static_cast<int>(std::count_if(lesson.sources.begin(), lesson.sources.end(), [](const std::string& s) {
        return s.ends_with(".cu") || s.ends_with(".cpp") || s.ends_with(".c");
    }));
    if (compiled != expected || !archived || !linked)
        throw user_error(build_error,
                         not_derivable(lesson, fmt::format("its commands for {} compile {} of the {} source files{}{}",
                                                           exercise->tests_target, compiled, expected,
                                                           archived ? "" : ", archive no library",
                                                           linked ? "" : ", link no program")));
    renames[library_rel] = scratch_mark + "/build/libsubmission.a";
    renames[program_rel] = scratch_mark + "/build/tests";
    // Where nvcc keeps the device code of each source (--keep-dir), which
    // the grader hands the judge: the submission's own, beside its library.
    renames[kept_device_code_dir(exercise->library).string()] =
        scratch_mark + "/build/" + kept_device_code_dir(submission_library("")).filename().string();

    // Files the commands write beside their outputs in the build folder
    // (CMake 4 has the linker write `.../CMakeFiles/<target>.dir/link.d`) go
    // to the scratch folder too: the build folder is read-only to a submission.
    const std::regex written(R"([^\s=,]*CMakeFiles/()" + exercise->tests_target + "|" + lesson.id +
                             R"(_exercise)\.dir/[^\s=,]*\.d\b)");
    std::set<fs::path> reads;
    for (auto [command, compiles] : chosen) {
        // Objects before sources: an object's path holds its source's relative path.
        for (const auto& [from, to] : renames)
            if (from.ends_with(".o")) replace_all(command, from, to);
        for (const auto& [from, to] : renames)
            if (!from.ends_with(".o")) replace_all(command, from, to);
        command = std::regex_replace(command, written, scratch_mark + "/build/$1.d");
        collect_reads(command, m.build_dir, reads);
        (compiles ? recipe.compile : recipe.link).push_back(command);
    }
    recipe.reads.assign(reads.begin(), reads.end());
    return recipe;
}

build_result build_submission(const submission_recipe& recipe, const fs::path& scratch,
                              const std::map<std::string, std::string>& files, const std::optional<fs::path>& bwrap,
                              const std::vector<fs::path>& hidden, const build_limits& limits) {
    fs::create_directories(scratch / "src");
    fs::create_directories(scratch / "build");
    fs::create_directories(kept_device_code_dir(submission_library(scratch)));
    for (const auto& name : recipe.sources)
        if (auto it = files.find(name); it != files.end()) std::ofstream(scratch / "src" / name, std::ios::binary) << it->second;
    const std::string root = scratch.string();
    for (auto [name, content] : recipe.generated) {
        replace_all(content, scratch_mark, root);
        std::ofstream(scratch / "build" / name, std::ios::binary) << content;
    }

    // The files compile side by side, as Ninja would compile them; `wait`
    // hands each one's status to `set -e`. Then the library and the program.
    std::string script = "set -e\ncd " + shell_quote(recipe.build_dir.string()) + "\n";
    for (std::size_t i = 0; i < recipe.compile.size(); ++i) {
        std::string command = recipe.compile[i];
        replace_all(command, scratch_mark, root);
        script += fmt::format("( {} ) & compile{}=$!\n", command, i);
    }
    for (std::size_t i = 0; i < recipe.compile.size(); ++i) script += fmt::format("wait $compile{}\n", i);
    // Each in a subshell: a command may change folder (a POST_BUILD step's
    // `cd`, as the library's keeps its device code), and the next runs in
    // the build folder all the same.
    for (std::string command : recipe.link) {
        replace_all(command, scratch_mark, root);
        script += "( " + command + " )\n";
    }
    std::vector<std::string> argv{"/bin/sh", "-c", script};
    if (bwrap) {
        sandbox_spec spec;
        spec.kept = {recipe.source_dir};
        if (!recipe.toolkit_dir.empty()) spec.kept.push_back(recipe.toolkit_dir);
        spec.hidden = hidden;
        spec.hidden.push_back(recipe.build_dir);
        spec.readable = recipe.reads;
        spec.writable = {scratch};
        argv = sandboxed_command(*bwrap, spec, argv);
    }

    build_result result;
    result.log = scratch / "build.log";
    child_process::options options;
    options.argv = argv;
    options.output = result.log;
    options.max_file_bytes = limits.max_file_bytes;
    options.max_data_bytes = limits.max_data_bytes;
    options.max_processes = limits.max_processes;
    options.niceness = limits.niceness;
    bool timed_out = false;
    const exit_status status = run_with_time_limit(options, limits.time, timed_out);
    result.ok = !timed_out && !status.signaled && status.code == 0;
    if (timed_out)
        result.digest = fmt::format("the build took longer than {} s and was stopped", limits.time.count());
    else if (!result.ok)
        result.digest = first_error(file_text(result.log), scratch / "src");
    return result;
}

}  // namespace grader
