#pragma once
// The student's progress: each lesson's best score and when it was reached,
// kept in the build folder (grader-progress.json). Losing or corrupting the
// file costs nothing but the history: the grader says so and starts afresh.
#include <filesystem>
#include <map>
#include <string>

namespace grader {

struct lesson_progress {
    int best = 0;
    int max = 0;
    std::string when;  // ISO 8601, UTC
};

class progress_store {
public:
    explicit progress_store(std::filesystem::path file);

    const lesson_progress* get(const std::string& lesson_id) const;
    // Records a score; keeps it only if it beats the best so far. Returns true if it did.
    bool record(const std::string& lesson_id, int score, int max);
    void save() const;

    // How many of a lesson's hints the student has already been shown.
    int hints_seen(const std::string& lesson_id) const;
    void set_hints_seen(const std::string& lesson_id, int count);

    // Set when the file existed but could not be read; shown to the student once.
    const std::string& warning() const { return warning_; }

private:
    std::filesystem::path file_;
    std::map<std::string, lesson_progress> lessons_;
    std::map<std::string, int> hints_seen_;
    std::string warning_;
};

}  // namespace grader
