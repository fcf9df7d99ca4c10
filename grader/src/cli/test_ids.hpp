#pragma once
// The ids `grader run --test` accepts: a lesson's graded tests as its judge
// lists them (`grader list LESSON` shows them), and the usage error that
// names the close ones when an id is none of them.
#include <string>
#include <vector>

#include "checkout/manifest.hpp"
#include "run/test_list.hpp"

namespace grader {

// The lesson's graded tests, as its judge lists them: the solution's test
// program (the student edition's own, which has none). Built first where it
// is missing and `build_if_missing`; else a missing program is a build error.
std::vector<listed_test> lesson_tests(const manifest& m, const lesson_info& lesson, bool build_if_missing);

// A usage error naming each of `ids` that is none of `tests`' ids, with the
// close ones ("no test VecAddCpuHost.Emtpy in lesson01; did you mean
// VecAddCpuHost.Empty?") and where all of them are listed.
void check_test_ids(const std::string& lesson_id, const std::vector<listed_test>& tests,
                    const std::vector<std::string>& ids);

// `grader list LESSON`: the lesson's tests, one a line: id, points, title.
std::string format_test_list(const lesson_info& lesson, const std::vector<listed_test>& tests);

}  // namespace grader
