#include "batch/timeline.hpp"

#include <algorithm>

namespace grader {

double batch_timeline::seconds(time_point t) const {
    return std::chrono::duration<double>(t - started_).count();
}

void batch_timeline::record(const std::string& student, const std::string& kind, time_point start, time_point end) {
    std::lock_guard lock(mutex_);
    work_.push_back({student, std::this_thread::get_id(), {kind, seconds(start), seconds(end)}});
}

std::vector<submission_timeline> batch_timeline::compose(const std::vector<gate_span>& gate_spans) const {
    std::lock_guard lock(mutex_);
    std::vector<submission_timeline> timeline;
    std::map<std::string, std::size_t> index;
    auto of = [&](const std::string& student) -> submission_timeline& {
        auto [it, added] = index.emplace(student, timeline.size());
        if (added) timeline.push_back({student, {}});
        return timeline[it->second];
    };
    for (const auto& w : work_) of(w.student).spans.push_back(w.span);
    for (const auto& g : gate_spans) {
        const double start = seconds(g.start), end = seconds(g.end);
        // A gate span belongs to the judging or explaining its thread was doing.
        const auto owner = std::find_if(work_.begin(), work_.end(), [&](const work& w) {
            return w.thread == g.thread && (w.span.kind == "judge" || w.span.kind == "explain") &&
                   w.span.start <= start && start <= w.span.end;
        });
        if (owner == work_.end()) continue;
        // "explain_shared" and the like: the sanitizer's and ncu's reruns.
        const std::string prefix = owner->span.kind == "explain" ? "explain_" : "";
        of(owner->student).spans.push_back({prefix + to_string(g.kind), start, end});
    }
    for (auto& t : timeline)
        std::sort(t.spans.begin(), t.spans.end(),
                  [](const timeline_span& a, const timeline_span& b) { return a.start < b.start; });
    return timeline;
}

}  // namespace grader
