#include "evidence/sanitizer_rerun_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace grader {

const rerun_plan::finding* rerun_plan::finding_of(sanitizer_tool tool) const {
    const auto it = std::find_if(findings_.begin(), findings_.end(), [&](const finding& f) { return f.tool == tool; });
    return it == findings_.end() ? nullptr : &*it;
}

const rerun_plan::nothing_found* rerun_plan::nothing_found_by(sanitizer_tool tool) const {
    const auto it = std::find_if(clean_.begin(), clean_.end(), [&](const nothing_found& c) { return c.tool == tool; });
    return it == clean_.end() ? nullptr : &*it;
}

bool rerun_plan::runs(sanitizer_tool tool, const std::string& test) {
    if (every_test_) return true;
    const bool spared = nothing_found_by(tool) || (!findings_.empty() && !finding_of(tool));
    if (spared && std::find(spared_.begin(), spared_.end(), test) == spared_.end()) spared_.push_back(test);
    return !spared;
}

std::vector<std::string> rerun_plan::kernels_not_checked(sanitizer_tool tool) const {
    std::vector<std::string> names;
    if (every_test_) return names;
    for (const auto& f : findings_) {
        const std::string name = kernel_filter_name(f.kernel);
        if (f.tool == tool && !name.empty() && std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names;
}

void rerun_plan::found(sanitizer_tool tool, const std::string& test, const std::string& kernel,
                       const std::string& message) {
    findings_.push_back({tool, test, kernel, message});
}

void rerun_plan::found_nothing(sanitizer_tool tool, const std::string& test) {
    if (!nothing_found_by(tool)) clean_.push_back({tool, test});
}

std::optional<std::string> rerun_plan::earlier_finding(const std::string& test) const {
    if (every_test_ || findings_.empty() || findings_.front().test == test) return std::nullopt;
    const finding& first = findings_.front();
    return fmt::format("seen in {}, which failed too ({} was not checked again here): {}", first.test, first.kernel,
                       first.message);
}

std::string rerun_plan::what_was_spared() const {
    if (spared_.empty()) return {};
    std::vector<std::string> what;
    for (const auto& f : findings_)
        what.push_back(fmt::format("{} named {} in {}", to_string(f.tool), f.kernel, f.test));
    std::vector<std::string> clean_tools;
    for (const auto& c : clean_) clean_tools.push_back(fmt::format("{} found nothing in {}", to_string(c.tool), c.test));
    what.insert(what.end(), clean_tools.begin(), clean_tools.end());
    return fmt::format(
        "compute-sanitizer: {}; so {} {} not rerun under every tool (a tool that found nothing once is not run again, "
        "a kernel a tool named is not checked by it again, and after a finding only the tools that found something "
        "look further: most failing tests of one submission fail for one reason)",
        fmt::join(what, "; "), fmt::join(spared_, ", "), spared_.size() == 1 ? "was" : "were");
}

}  // namespace grader
