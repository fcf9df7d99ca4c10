#include "system/step_timings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace grader {

void step_timings::add(const std::string& step, clock::time_point start, clock::time_point end) {
    const auto seconds = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };
    std::lock_guard lock(mutex_);
    spans_.push_back({step, seconds(start - origin_), seconds(end - start)});
}

std::vector<step_timings::span> step_timings::spans() const {
    std::lock_guard lock(mutex_);
    std::vector<span> sorted = spans_;
    std::stable_sort(sorted.begin(), sorted.end(), [](const span& a, const span& b) { return a.start_s < b.start_s; });
    return sorted;
}

std::string step_timings::format() const {
    const std::vector<span> all = spans();
    double end = 0;
    for (const auto& s : all) end = std::max(end, s.start_s + s.seconds);
    std::string text = fmt::format("where the time went: {:.2f} s from {} to the report\n", end, origin_name_);
    text += fmt::format("  {:>7}  {:>7}  {}\n", "at (s)", "took (s)", "step");
    // A bar shows where in the run each step fell, so overlaps stand out.
    constexpr int bar_width = 30;
    std::map<std::string, double> by_whom;  // "student", "judge": the seconds of each program's steps
    for (const auto& s : all) {
        if (const auto colon = s.step.find(": "); colon != std::string::npos)
            by_whom[s.step.substr(0, colon)] += s.seconds;
        // Nothing happened between two tests: not worth a line.
        if (s.seconds < 0.0005 && s.step.ends_with("between tests")) continue;
        std::string bar(bar_width, ' ');
        if (end > 0) {
            const int from = std::clamp(static_cast<int>(s.start_s / end * bar_width), 0, bar_width - 1);
            const int to = std::clamp(static_cast<int>((s.start_s + s.seconds) / end * bar_width), from + 1, bar_width);
            std::fill(bar.begin() + from, bar.begin() + to, '#');
        }
        text += fmt::format("  {:7.3f}  {:8.3f}  |{}|  {}\n", s.start_s, s.seconds, bar, s.step);
    }
    for (const auto& [who, seconds] : by_whom)
        text += fmt::format("  {:.3f} s in all for \"{}: ...\"\n", seconds, who);
    text += "  (a judge's test ends after the same test of the student's program; a correctness test's judge runs beside it)\n";
    return text;
}

}  // namespace grader
