#pragma once
// Noticing that a student saved an exercise file, by polling: portable to
// every file system and editor, no inotify. A file counts as changed when its
// content changes; its modification time only says when to look again, so a
// `touch` or a save that writes the same text does not trigger a rebuild.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

namespace grader {

struct file_state {
    bool exists = false;
    std::uintmax_t size = 0;
    std::filesystem::file_time_type modified{};
    std::uint64_t hash = 0;  // of the content

    // Same content (or absent both times); the time does not matter.
    bool same_content(const file_state& other) const {
        return exists == other.exists && size == other.size && hash == other.hash;
    }
};

using file_snapshot = std::map<std::filesystem::path, file_state>;

// The state of `files` now. A file whose size and time are as in `previous`
// keeps its hash there instead of being read again.
file_snapshot take_snapshot(const std::vector<std::filesystem::path>& files, const file_snapshot& previous = {});

// The files whose content differs between two snapshots of the same files.
std::vector<std::filesystem::path> changed_files(const file_snapshot& before, const file_snapshot& after);

// Polled every few hundred milliseconds; reports a change only once the files
// have been quiet for `settle`, because an editor often writes a file in
// several steps (truncate, write, rename) and a half-saved file must not be
// graded.
class change_detector {
public:
    using clock = std::chrono::steady_clock;

    explicit change_detector(std::vector<std::filesystem::path> files,
                             std::chrono::milliseconds settle = std::chrono::milliseconds(300));

    // The files changed since the last report (or rebase), once they have
    // settled; empty otherwise. `now` is passed in so tests need not sleep.
    std::vector<std::filesystem::path> poll(clock::time_point now);

    // Takes the files as they are now as the new baseline (after a regrade
    // asked for by hand, so the same edit does not trigger a second one).
    void rebase();

    const std::vector<std::filesystem::path>& files() const { return files_; }

private:
    std::vector<std::filesystem::path> files_;
    std::chrono::milliseconds settle_;
    file_snapshot baseline_;  // what was last graded
    file_snapshot latest_;    // what the last poll saw
    clock::time_point last_change_{};
};

}  // namespace grader
