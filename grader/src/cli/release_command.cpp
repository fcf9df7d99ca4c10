// `grader release DIR`: the student edition, for an instructor to publish
// (checkout/release.hpp says what it holds and why).
#include <fmt/format.h>

#include <iostream>

#include "batch/similarity_release.hpp"
#include "checkout/release.hpp"
#include "cli/commands.hpp"

namespace grader {

void refuse_in_student_edition(const manifest& m, const std::string& command) {
    if (!m.student_edition()) return;
    throw user_error(usage_error,
                     fmt::format("`grader {}` is for instructors, and this is the student edition of the course: "
                                 "it has no solutions to grade with. Run it in the instructor's edition (the "
                                 "repository `grader release` was run in).",
                                 command));
}

int cmd_release(const common_args& common, const release_args& args) {
    const manifest m = open_build(common.build_dir);
    refuse_in_student_edition(m, "release");
    const release_result r = write_student_edition(
        m.source_dir, args.commit, args.output,
        [](const auto& full_tree, const auto& edition) { return find_solution_leaks(full_tree, edition); },
        args.repo_url);
    std::cout << fmt::format(
        "wrote the student edition of {} to {}: {} files, one commit ({})\n"
        "left out: solutions/, the known-wrong, cheat and textbook versions, the textbook kernels' source, and the\n"
        "instructor's tools and pages (.gitattributes, export-ignore); checked: no file of it, read as the copy flag\n"
        "reads code (a diff's sides and a notebook's cells too), holds {:g}% of a solution file's own code.\n"
        "publish it (a GitHub Classroom template, say) and grade what students hand in here, with `grader batch`.\n",
        r.source_commit.substr(0, 12), args.output.string(), r.files, r.edition_commit.substr(0, 12),
        release_max_share * 100);
    std::cout << release_repo_url_line(args.repo_url, r);
    return all_passed;
}

}  // namespace grader
