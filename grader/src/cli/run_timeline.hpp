#pragma once
// `grader run LESSON --timeline`: after the report, each timed test's
// streams as the GPU recorded them (evidence/gpu_timeline.hpp): a sketch in
// the terminal, and a picture drawn by the course's plot script.
#include <iosfwd>
#include <string>

#include "checkout/manifest.hpp"
#include "report/report.hpp"

namespace grader {

// Reads the records the run left in its evidence folder and shows them on
// `out`. Returns false when there was nothing to draw or the picture failed
// (the sketch is shown whenever a record could be read).
bool show_timelines(const manifest& m, const lesson_info& lesson, const std::string& variant,
                    const lesson_report& report, std::ostream& out);

}  // namespace grader
