#include "checkout/build.hpp"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "system/process.hpp"

namespace grader {

namespace {
std::string source_line(const std::filesystem::path& file, int number) {
    std::ifstream in(file);
    std::string line;
    for (int i = 1; std::getline(in, line); ++i)
        if (i == number) return line;
    return {};
}
}  // namespace

std::string first_error(const std::string& log, const std::filesystem::path& source_root) {
    // nvcc:  path/file.cu(12): error: message
    // gcc:   path/file.cpp:12:5: error: message
    static const std::regex nvcc(R"(^(.+?)\((\d+)\): (?:catastrophic )?error: (.*)$)");
    static const std::regex gcc(R"(^(.+?):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$)");
    std::istringstream in(log);
    std::string fallback;
    for (std::string line; std::getline(in, line);) {
        // The build files could not be regenerated (a CMakeLists.txt changed and
        // no longer configures): no compiler ran, so say that, with CMake's words.
        if (line.rfind("CMake Error", 0) == 0) {
            std::string text = "CMake could not regenerate the build files, so nothing was compiled:\n    " + line;
            int shown = 0;
            for (std::string more; shown < 4 && std::getline(in, more);) {
                if (more.find_first_not_of(' ') == std::string::npos) continue;
                if (more.rfind("Call Stack", 0) == 0 || more.rfind("CMake Error", 0) == 0) break;
                text += "\n    " + more.substr(more.find_first_not_of(' '));
                ++shown;
            }
            return text + "\n  Run `cmake --preset default` to see CMake's whole message.";
        }
        std::smatch m;
        if (std::regex_match(line, m, nvcc) || std::regex_match(line, m, gcc)) {
            std::filesystem::path file = m[1].str();
            const int number = std::stoi(m[2].str());
            std::error_code ec;
            const auto shown = file.is_absolute() ? std::filesystem::relative(file, source_root, ec) : file;
            std::string text = fmt::format("{}:{}: error: {}", (ec || shown.empty() ? file : shown).string(), number, m[3].str());
            if (const std::string src = source_line(file, number); !src.empty()) text += "\n    " + src;
            return text;
        }
        if (fallback.empty() && (line.find("error") != std::string::npos || line.find("undefined reference") != std::string::npos))
            fallback = line;
    }
    return fallback.empty() ? "the build failed; see the log for details" : fallback;
}

build_result build_targets(const manifest& m, const std::vector<std::string>& targets) {
    build_result result;
    result.log = m.build_dir / "grader-build.log";
    std::vector<std::string> argv{m.cmake.string(), "--build", m.build_dir.string(), "--target"};
    argv.insert(argv.end(), targets.begin(), targets.end());
    const exit_status status = run_command(argv, result.log);
    result.ok = !status.signaled && status.code == 0;
    if (!result.ok) result.digest = first_error(file_text(result.log), m.source_dir);
    return result;
}

std::string compile_failure_text(const lesson_info& lesson, const build_result& built) {
    // A broken CMakeLists.txt stops the build before any compiler runs: say "build".
    const bool cmake = built.digest.rfind("CMake", 0) == 0;
    return fmt::format("\n{} does not {}, so no tests ran.\n\n  {}\n\nfull log: {}\n", lesson.id,
                       cmake ? "build" : "compile", built.digest, built.log.string());
}

}  // namespace grader
