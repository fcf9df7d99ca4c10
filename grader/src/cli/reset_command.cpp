// grader reset LESSON: put a lesson's skeleton back, keeping the student's
// version beside it. Nothing is ever deleted (see reset.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "checkout/context.hpp"
#include "checkout/reset.hpp"
#include "cli/commands.hpp"
#include "cli/terminal.hpp"

namespace grader {

namespace {
// A path as short as it can be while still working from the current folder
// (the `cp` line below must work when pasted).
std::string shown(const fs::path& file) {
    std::error_code ec;
    const fs::path rel = file.lexically_relative(fs::current_path(ec));
    return ec || rel.empty() || *rel.begin() == ".." ? file.string() : rel.string();
}

bool confirmed(const std::string& question) {
    std::cout << question << " [y/N] " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer)) return false;
    return answer == "y" || answer == "Y" || answer == "yes";
}
}  // namespace

int cmd_reset(const common_args& common, const reset_args& args) {
    const manifest m = open_build(common.build_dir);
    const lesson_info& lesson = find_lesson(m, args.lesson);
    const variant_info* exercise = lesson.variant("exercise");
    if (!exercise) throw user_error(usage_error, fmt::format("{} has no exercise to reset", lesson.id));

    const skeleton s = find_skeleton(exercise->source_dir, lesson.sources);
    std::cout << fmt::format("{}: the skeleton comes from git, commit {} ({}).\n", lesson.id, s.commit, s.why);
    if (!s.modified()) {
        std::cout << fmt::format("Every file of {} is already the skeleton; nothing to do.\n", lesson.id);
        return all_passed;
    }

    const std::string stamp = backup_stamp();
    for (const auto& f : s.files) {
        if (!f.modified)
            std::cout << fmt::format("  {}: already the skeleton, left alone\n", shown(f.path));
        else if (!f.exists)
            std::cout << fmt::format("  {}: missing, the skeleton will be written\n", shown(f.path));
        else
            std::cout << fmt::format("  {}: changed, your version will be saved as {}\n", shown(f.path),
                                     backup_path(f.path, stamp).filename().string());
    }
    if (args.dry_run) {
        std::cout << "Dry run: nothing was changed.\n";
        return all_passed;
    }
    // Nothing can be lost, but a reset by mistake is still a surprise: ask a
    // person; a script (stdin not a terminal) gets on with it.
    if (!args.yes && is_terminal(STDIN_FILENO) &&
        !confirmed(fmt::format("Reset {} to its skeleton? Your version is kept in the .bak file.", lesson.id))) {
        std::cout << "Nothing was changed.\n";
        return all_passed;
    }

    const std::vector<reset_action> actions = restore_skeleton(s, stamp);
    for (const auto& action : actions) {
        if (action.backup) std::cout << fmt::format("  saved    {} (your version)\n", shown(*action.backup));
        if (action.restored) std::cout << fmt::format("  restored {} (the skeleton)\n", shown(action.file));
    }
    for (const auto& action : actions)
        if (action.backup)
            std::cout << fmt::format("To get your version back: cp {} {}\n", shown(*action.backup), shown(action.file));
    return all_passed;
}

}  // namespace grader
