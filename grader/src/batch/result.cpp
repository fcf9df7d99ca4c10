#include "batch/result.hpp"

namespace grader {

batch_result::outcome batch_result::state() const {
    if (!not_graded.empty()) return outcome::not_graded;
    if (build_failed) return outcome::build_failed;
    if (!report || !report->graded()) return outcome::not_graded;
    // Without a GPU its GPU tests did not run: a score of the host tests
    // alone would look final and be importable. (A test a GPU skips for a
    // reason of its own, lesson05's overlap on a GPU with one copy engine,
    // does not stop the rest being graded.)
    if (!report->no_gpu_reason.empty() && report->count(test_status::skipped) > 0) return outcome::not_graded;
    return outcome::graded;
}

std::string batch_result::not_graded_reason() const {
    if (!not_graded.empty()) return not_graded;
    if (!report) return "no report came back";
    if (!report->no_gpu_reason.empty())
        return "its GPU tests could not run here (no GPU: " + report->no_gpu_reason +
               "): grade the class on a GPU machine";
    return "no test ran";
}

const char* to_string(batch_result::outcome o) {
    switch (o) {
        case batch_result::outcome::graded: return "graded";
        case batch_result::outcome::build_failed: return "build_failed";
        case batch_result::outcome::not_graded: return "not_graded";
    }
    return "unknown";
}

}  // namespace grader
