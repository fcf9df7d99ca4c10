#include "batch/timeline.hpp"

#include <algorithm>

namespace grader {

double scores_final_seconds(const std::vector<submission_timeline>& timeline) {
    double last = 0;
    for (const auto& t : timeline)
        for (const auto& span : t.spans)
            if (span.kind == "judge" || span.kind == "build") last = std::max(last, span.end);
    return last;
}

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
    // A gate span belongs to the judging or explaining its thread was doing;
    // a span of a run opened on another thread (a timed test under Nsight
    // Compute waits for the GPU on a thread of its own), to that of its run.
    std::vector<const work*> on_thread(gate_spans.size(), nullptr);
    for (std::size_t i = 0; i < gate_spans.size(); ++i) {
        const gate_span& g = gate_spans[i];
        const double start = seconds(g.start);
        const auto w = std::find_if(work_.begin(), work_.end(), [&](const work& w) {
            return w.thread == g.thread && (w.span.kind == "judge" || w.span.kind == "explain") &&
                   w.span.start <= start && start <= w.span.end;
        });
        if (w != work_.end()) on_thread[i] = &*w;
    }
    // Which work each run was part of. A run's address may be another run's
    // later, so a span goes to the work of its run that was going on then.
    std::multimap<const void*, const work*> runs;
    for (std::size_t i = 0; i < gate_spans.size(); ++i)
        if (on_thread[i] && gate_spans[i].owner) runs.emplace(gate_spans[i].owner, on_thread[i]);
    auto by_run = [&](const gate_span& g) -> const work* {
        const double start = seconds(g.start);
        const auto [first, last] = runs.equal_range(g.owner);
        for (auto it = first; g.owner && it != last; ++it)
            if (it->second->span.start <= start && start <= it->second->span.end) return it->second;
        return nullptr;
    };
    for (std::size_t i = 0; i < gate_spans.size(); ++i) {
        const gate_span& g = gate_spans[i];
        const work* owner = on_thread[i] ? on_thread[i] : by_run(g);
        if (!owner) continue;
        // "explain_shared" and the like: the sanitizer's and ncu's reruns.
        const std::string prefix = owner->span.kind == "explain" ? "explain_" : "";
        of(owner->student).spans.push_back({prefix + to_string(g.kind), seconds(g.start), seconds(g.end)});
    }
    for (auto& t : timeline)
        std::sort(t.spans.begin(), t.spans.end(),
                  [](const timeline_span& a, const timeline_span& b) { return a.start < b.start; });
    return timeline;
}

}  // namespace grader
