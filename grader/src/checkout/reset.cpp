#include "checkout/reset.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "checkout/context.hpp"
#include "course/temp_dir.hpp"
#include "system/process.hpp"

namespace grader {

namespace {
constexpr const char* untouched = "Your files are untouched.";

std::optional<std::string> read_file(const fs::path& file) {
    std::ifstream in{file, std::ios::binary};
    if (!in) return {};  // missing or unreadable
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// Runs git in `dir`; its output (stdout and stderr together) lands in a file
// of `scratch`. Fine for commands that print only their answer on success.
struct git_runner {
    fs::path git, dir;
    course::temp_dir scratch{"grader-reset"};

    bool operator()(const std::vector<std::string>& args, std::string& output) {
        std::vector<std::string> argv{git.string(), "-C", dir.string()};
        argv.insert(argv.end(), args.begin(), args.end());
        const fs::path out = scratch / "git.out";
        const exit_status status = run_command(argv, out);
        output = read_file(out).value_or("");
        return !status.signaled && status.code == 0;
    }
};

user_error setup_error(const std::string& what) { return user_error(build_error, what + "\n" + untouched); }

// The commit the skeleton comes from, and why that one.
std::pair<std::string, std::string> base_commit(git_runner& git) {
    std::string upstream, out;
    if (git({"rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"}, upstream) &&
        git({"merge-base", "HEAD", "@{upstream}"}, out))
        return {trimmed(out), fmt::format("where this branch left {}", trimmed(upstream))};
    if (git({"rev-parse", "--verify", "HEAD"}, out)) return {trimmed(out), "HEAD"};
    throw setup_error(fmt::format("reset takes the skeleton from git, but the checkout in {} has no commit yet.",
                                  git.dir.string()));
}

// Creates `file` with `content`, failing rather than replacing an existing one.
bool write_new_file(const fs::path& file, const std::string& content, mode_t mode, int& error) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        error = errno;
        return false;
    }
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            error = n < 0 ? errno : EIO;
            ::close(fd);
            return false;
        }
        written += static_cast<std::size_t>(n);
    }
    const bool ok = ::fsync(fd) == 0;  // on disk before the original is replaced
    error = ok ? 0 : errno;
    ::close(fd);
    return ok;
}

// Copies the student's version to a fresh backup and checks the copy.
fs::path save_backup(const fs::path& file, const std::string& content, const std::string& stamp) {
    struct stat info {};
    const mode_t mode = ::stat(file.c_str(), &info) == 0 ? (info.st_mode & 0777) : 0644;
    for (;;) {
        const fs::path backup = backup_path(file, stamp);
        int error = 0;
        if (write_new_file(backup, content, mode, error)) {
            if (read_file(backup) != content)
                throw user_error(build_error, fmt::format("the copy of {} in {} does not match it, so nothing was reset. {}",
                                                          file.string(), backup.string(), untouched));
            return backup;
        }
        if (error != EEXIST)  // EEXIST: someone took that name just now; try the next
            throw user_error(build_error, fmt::format("cannot save {} as {}: {}. Nothing was reset. {}", file.string(),
                                                      backup.string(), std::strerror(error), untouched));
    }
}

// Replaces `file` by `content` in one step: a reader (the compiler, an
// editor) sees the old file or the new one, never half of either.
void replace_file(const fs::path& file, const std::string& content) {
    struct stat info {};
    const mode_t mode = ::stat(file.c_str(), &info) == 0 ? (info.st_mode & 0777) : 0644;
    const fs::path temp = file.parent_path() / fmt::format(".{}.grader-reset-{}", file.filename().string(), ::getpid());
    int error = 0;
    fs::remove(temp);  // a leftover from an interrupted reset of ours
    if (!write_new_file(temp, content, mode, error) || ::rename(temp.c_str(), file.c_str()) != 0) {
        if (!error) error = errno;
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw user_error(build_error, fmt::format("cannot write {}: {}", file.string(), std::strerror(error)));
    }
}
}  // namespace

bool skeleton::modified() const {
    for (const auto& f : files)
        if (f.modified) return true;
    return false;
}

std::optional<fs::path> find_git() { return find_program("git"); }

skeleton find_skeleton(const fs::path& exercise_dir, const std::vector<std::string>& sources,
                       const std::optional<fs::path>& git_program) {
    if (!git_program)
        throw setup_error("reset takes the skeleton from the course's git checkout, and git is not installed "
                          "(or not on PATH).\nInstall it (Debian/Ubuntu: sudo apt install git) and run this again.");
    // git runs in the exercise's folder, or the nearest one that is left if
    // the student deleted it: the skeleton can bring it back.
    fs::path existing = exercise_dir;
    while (!fs::is_directory(existing) && existing.has_relative_path()) existing = existing.parent_path();
    git_runner git{*git_program, existing};

    std::string out;
    if (!git({"rev-parse", "--show-toplevel"}, out))
        throw setup_error(fmt::format(
            "reset needs the course's git checkout, but {} is not in one (git says: {}).\n"
            "The skeleton is in the course's repository: clone it again, or copy the file from there.",
            exercise_dir.string(), trimmed(out)));
    const fs::path top = fs::weakly_canonical(trimmed(out));

    skeleton s;
    const auto [commit, why] = base_commit(git);
    s.why = why;
    s.commit = git({"rev-parse", "--short", commit}, out) ? trimmed(out) : commit;

    for (const auto& source : sources) {
        skeleton_file f;
        f.path = exercise_dir / source;
        f.git_path = fs::weakly_canonical(f.path).lexically_relative(top).generic_string();
        const std::string object = commit + ":" + f.git_path;
        if (!git({"cat-file", "-e", object}, out))
            throw setup_error(fmt::format("{} is not in git at {} ({}), so there is no skeleton to restore it from.",
                                          f.git_path, s.commit, s.why));
        // --filters: the content as a checkout writes it (line endings included).
        if (!git({"cat-file", "--filters", object}, f.pristine))
            throw setup_error(fmt::format("git could not read {}: {}", object, trimmed(f.pristine)));
        const auto current = read_file(f.path);
        f.exists = fs::exists(f.path);
        if (f.exists && !current) throw setup_error(fmt::format("cannot read {}", f.path.string()));
        f.modified = !f.exists || *current != f.pristine;
        s.files.push_back(std::move(f));
    }
    return s;
}

fs::path backup_path(const fs::path& file, const std::string& stamp) {
    const std::string base = file.filename().string() + "." + stamp;
    fs::path candidate = file.parent_path() / (base + ".bak");
    for (int n = 1; fs::exists(fs::symlink_status(candidate)); ++n)
        candidate = file.parent_path() / fmt::format("{}-{}.bak", base, n);
    return candidate;
}

std::string backup_stamp() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char text[32];
    std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &local);
    return text;
}

std::vector<reset_action> restore_skeleton(const skeleton& s, const std::string& stamp) {
    // First every backup, then every restore: if a backup fails, nothing has
    // been overwritten yet.
    std::vector<reset_action> actions;
    for (const auto& f : s.files) {
        reset_action action{f.path, std::nullopt, false};
        const auto current = read_file(f.path);  // again: it may have been saved since
        if (fs::exists(f.path) && !current)
            throw user_error(build_error, fmt::format("cannot read {}; nothing was reset. {}", f.path.string(), untouched));
        action.restored = !current || *current != f.pristine;
        if (current && action.restored) action.backup = save_backup(f.path, *current, stamp);
        actions.push_back(std::move(action));
    }
    for (std::size_t i = 0; i < actions.size(); ++i) {
        if (!actions[i].restored) continue;
        try {
            fs::create_directories(s.files[i].path.parent_path());
            replace_file(s.files[i].path, s.files[i].pristine);
        } catch (const user_error& e) {
            if (!actions[i].backup) throw;
            throw user_error(e.code, fmt::format("{}\nYour version is safe in {}.", e.what(), actions[i].backup->string()));
        }
    }
    return actions;
}

}  // namespace grader
