#include "batch/result.hpp"

namespace grader {

batch_result::outcome batch_result::state() const {
    if (!not_graded.empty()) return outcome::not_graded;
    if (build_failed) return outcome::build_failed;
    if (!report || !report->graded()) return outcome::not_graded;
    return outcome::graded;
}

std::string batch_result::not_graded_reason() const {
    if (!not_graded.empty()) return not_graded;
    if (!report) return "no report came back";
    if (!report->no_gpu_reason.empty()) return "no CUDA device: " + report->no_gpu_reason;
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
