#include "attempt.hpp"

#include <fmt/format.h>

#include "progress.hpp"

namespace grader {

std::string compile_failure_text(const lesson_info& lesson, const build_result& built) {
    // A broken CMakeLists.txt stops the build before any compiler runs: say "build".
    const bool cmake = built.digest.rfind("CMake", 0) == 0;
    return fmt::format("\n{} does not {}, so no tests ran.\n\n  {}\n\nfull log: {}\n", lesson.id,
                       cmake ? "build" : "compile", built.digest, built.log.string());
}

bool remember_score(const manifest& m, const lesson_report& report, std::ostream& warnings) {
    if (report.variant != "exercise" || !report.graded()) return false;
    progress_store progress(m.build_dir / "grader-progress.json");
    if (!progress.warning().empty()) warnings << "grader: " << progress.warning() << "\n";
    if (!progress.record(report.lesson_id, report.score(), report.max_score())) return false;
    progress.save();
    return true;
}

}  // namespace grader
