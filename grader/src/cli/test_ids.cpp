#include "cli/test_ids.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "checkout/build.hpp"
#include "checkout/context.hpp"
#include "system/user_error.hpp"

namespace grader {

std::vector<listed_test> lesson_tests(const manifest& m, const lesson_info& lesson, bool build_if_missing) {
    const variant_info* lister = lesson.variant("solution");
    if (!lister) lister = lesson.variant("exercise");
    if (!lister)
        throw user_error(build_error, fmt::format("{} has no test program in {}", lesson.id, m.build_dir.string()));
    std::error_code ec;
    if (!fs::is_regular_file(lister->tests, ec)) {
        if (!build_if_missing)
            throw user_error(build_error, fmt::format("{} is not built, so its tests cannot be listed: run without "
                                                      "--no-build, or `grader list {}`",
                                                      lister->tests.string(), lesson.id));
        std::cerr << fmt::format("building {}'s tests ({})...\n", lesson.id, lister->tests_target) << std::flush;
        const build_result built = build_targets(m, {lister->tests_target});
        if (!built.ok)
            throw user_error(build_error, fmt::format("{}'s tests did not build, so they cannot be listed:\n  {}\n"
                                                      "full log: {}",
                                                      lesson.id, built.digest, built.log.string()));
    }
    const fs::path log_dir = m.build_dir / "grader-logs" / fmt::format("{}-tests", lesson.id);
    fs::create_directories(log_dir);
    return list_graded_tests(lister->tests, log_dir);
}

void check_test_ids(const std::string& lesson_id, const std::vector<listed_test>& tests,
                    const std::vector<std::string>& ids) {
    std::vector<std::string> known;
    for (const auto& t : tests) known.push_back(t.id);
    std::vector<std::string> problems;
    for (const auto& id : ids) {
        if (std::find(known.begin(), known.end(), id) != known.end()) continue;
        const std::string meant = did_you_mean(close_matches(id, known));
        problems.push_back(fmt::format("no test {} in {}{}", id, lesson_id, meant.empty() ? "" : "; " + meant));
    }
    if (problems.empty()) return;
    throw user_error(usage_error, fmt::format("{}\n`grader list {}` shows its {} test ids, which --test takes.",
                                              fmt::join(problems, "\n"), lesson_id, known.size()));
}

std::string format_test_list(const lesson_info& lesson, const std::vector<listed_test>& tests) {
    int points = 0;
    std::size_t id_width = std::string("test id").size();
    for (const auto& t : tests) {
        points += t.points;
        id_width = std::max(id_width, t.id.size());
    }
    std::string out =
        fmt::format("{} ({}): {} graded tests, {} points\n\n", lesson.id, lesson.title, tests.size(), points);
    out += fmt::format("  {:<{}}  points  what it checks\n", "test id", id_width);
    for (const auto& t : tests) {
        std::string notes;
        if (t.kind == "performance") notes += " (speed)";
        if (!t.gpu) notes += " (no GPU needed)";
        out += fmt::format("  {:<{}}  {:>6}  {}{}\n", t.id, id_width, t.points, t.title, notes);
    }
    if (!tests.empty())
        out += fmt::format("\ngrade one with: grader run {} --test {}\n", lesson.id, tests.front().id);
    return out;
}

}  // namespace grader
