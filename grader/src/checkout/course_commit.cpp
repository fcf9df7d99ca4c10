#include "checkout/course_commit.hpp"

#include <unistd.h>

#include <filesystem>

#include "system/process.hpp"
#include "system/sha256.hpp"

namespace grader {

namespace {
std::string git_output(const std::filesystem::path& source_dir, std::vector<std::string> args, bool& ok) {
    const auto git = find_program("git");
    ok = false;
    if (!git) return {};
    const auto out = std::filesystem::temp_directory_path() / ("grader-git-" + std::to_string(getpid()) + ".txt");
    std::vector<std::string> argv{git->string(), "-C", source_dir.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const exit_status status = run_command(argv, out);
    ok = !status.signaled && status.code == 0;
    std::string text = file_text(out);
    std::error_code ec;
    std::filesystem::remove(out, ec);
    return text;
}
}  // namespace

std::string course_commit(const std::filesystem::path& source_dir) {
    bool ok = false;
    std::string head = git_output(source_dir, {"rev-parse", "HEAD"}, ok);
    if (!ok) return "unversioned";
    while (!head.empty() && (head.back() == '\n' || head.back() == '\r')) head.pop_back();
    // The student's own exercise files never take part in a batch: theirs
    // replace them. Everything else (tests, judge, harness) does.
    const std::string diff = git_output(source_dir, {"diff", "HEAD", "--", ".", ":(exclude)exercises"}, ok);
    if (!ok || diff.empty()) return head;
    return head + "+dirty-" + sha256_hex(diff).substr(0, 12);
}

}  // namespace grader
