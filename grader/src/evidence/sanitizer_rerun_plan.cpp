#include "evidence/sanitizer_rerun_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace grader {

std::string suite_of(const std::string& test) { return test.substr(0, test.find('.')); }

const rerun_plan::outcome* rerun_plan::finding_in_suite_of(const std::string& test) const {
    const auto it = std::find_if(outcomes_.begin(), outcomes_.end(), [&](const outcome& o) {
        return !o.message.empty() && suite_of(o.test) == suite_of(test);
    });
    return it == outcomes_.end() ? nullptr : &*it;
}

std::vector<std::string> rerun_plan::clean_tests(sanitizer_tool tool) const {
    std::vector<std::string> tests;
    for (const auto& o : outcomes_)
        if (o.tool == tool && o.message.empty()) tests.push_back(o.test);
    return tests;
}

bool rerun_plan::runs(sanitizer_tool tool, const std::string& test) {
    if (every_test_) return true;
    if (std::find(blind_.begin(), blind_.end(), tool) != blind_.end()) return false;
    const bool spared =
        static_cast<int>(clean_tests(tool).size()) >= clean_tests_per_tool || finding_in_suite_of(test);
    if (spared && std::find(spared_.begin(), spared_.end(), test) == spared_.end()) spared_.push_back(test);
    return !spared;
}

void rerun_plan::found(sanitizer_tool tool, const std::string& test, const std::string& message,
                       const std::string& seen_in) {
    outcomes_.push_back({tool, test, message, seen_in});
}

void rerun_plan::found_nothing(sanitizer_tool tool, const std::string& test) { outcomes_.push_back({tool, test, "", ""}); }

std::string rerun_plan::seen_in_quicker_test(const std::string& quicker, const std::string& message) {
    return fmt::format("seen in {}, a quicker test of the same functions that passed (a hazard need not change every "
                       "run's output), rerun under compute-sanitizer in place of the failing ones: {}",
                       quicker, message);
}

void rerun_plan::nothing_to_look_at(sanitizer_tool tool) {
    if (std::find(blind_.begin(), blind_.end(), tool) == blind_.end()) blind_.push_back(tool);
}

std::string rerun_plan::why_not_run() const {
    const bool race = std::find(blind_.begin(), blind_.end(), sanitizer_tool::racecheck) != blind_.end();
    const bool sync = std::find(blind_.begin(), blind_.end(), sanitizer_tool::synccheck) != blind_.end();
    if (!race && !sync) return {};
    std::string why;
    if (race) why = "no instruction that may touch shared memory, all racecheck watches";
    if (race && sync) why += ", and ";
    if (sync) why += "no barrier or warp-synchronous instruction, all synccheck checks";
    // The answer may come after a first rerun of one of them.
    const bool ran = std::any_of(blind_.begin(), blind_.end(), [&](sanitizer_tool tool) {
        return std::any_of(outcomes_.begin(), outcomes_.end(), [&](const outcome& o) { return o.tool == tool; });
    });
    return fmt::format("{} not run{}: the test program's kernels have {} (cuobjdump -sass)",
                       race && sync ? "racecheck and synccheck were" : race ? "racecheck was" : "synccheck was",
                       ran ? " (or not again)" : "", why);
}

std::optional<std::string> rerun_plan::earlier_finding(const std::string& test) const {
    const outcome* first = every_test_ ? nullptr : finding_in_suite_of(test);
    if (!first || first->test == test) return std::nullopt;
    if (!first->seen_in.empty()) return seen_in_quicker_test(first->seen_in, first->message);
    return fmt::format("seen in {}, which failed too (this test was not rerun under compute-sanitizer): {}",
                       first->test, first->message);
}

std::string rerun_plan::what_was_spared() const {
    if (spared_.empty()) return {};
    std::vector<std::string> what;
    for (const auto& o : outcomes_)
        if (!o.message.empty())
            what.push_back(o.seen_in.empty()
                               ? fmt::format("{} found an error in {}", to_string(o.tool), o.test)
                               : fmt::format("{} found an error in {} (rerun for {})", to_string(o.tool), o.seen_in,
                                             o.test));
    // Tools that found nothing in the same tests are said together:
    // "memcheck, racecheck, synccheck and initcheck found nothing in A and B".
    std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> clean;  // tests, tools
    for (const sanitizer_tool tool : sanitizer_tools_in_order) {
        const std::vector<std::string> tests = clean_tests(tool);
        if (static_cast<int>(tests.size()) < clean_tests_per_tool) continue;
        const auto same = std::find_if(clean.begin(), clean.end(), [&](const auto& c) { return c.first == tests; });
        if (same != clean.end()) same->second.push_back(to_string(tool));
        else clean.push_back({tests, {to_string(tool)}});
    }
    auto and_list = [](const std::vector<std::string>& items) {
        if (items.size() < 2) return fmt::format("{}", fmt::join(items, ""));
        return fmt::format("{} and {}", fmt::join(items.begin(), items.end() - 1, ", "), items.back());
    };
    for (const auto& [tests, tools] : clean)
        what.push_back(fmt::format("{} found nothing in {}", and_list(tools), and_list(tests)));
    return fmt::format("compute-sanitizer: {}; so {} {} not rerun under every tool (a tool that finds nothing in two "
                       "failing tests is not run again, and once one finds an error the rest of that suite is not "
                       "rerun: most failures of one submission have one cause)",
                       fmt::join(what, "; "), and_list(spared_), spared_.size() == 1 ? "was" : "were");
}

}  // namespace grader
