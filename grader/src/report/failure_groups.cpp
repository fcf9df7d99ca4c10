#include "report/failure_groups.hpp"

#include <algorithm>
#include <iterator>
#include <regex>

namespace grader {

namespace {

bool failed(const graded_test& t) {
    return t.status == test_status::failed || t.status == test_status::crashed ||
           t.status == test_status::timed_out || t.status == test_status::missing;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// What makes two failures the same: a sanitizer finding without the thread
// and the address it was seen at; any other message as its first line.
std::string reason_of(const graded_test& t) {
    if (t.messages.empty()) return {};
    const std::string line = first_line(t.messages.front());
    if (line.rfind("compute-sanitizer (", 0) == 0) return line.substr(0, line.find(", thread ("));
    return line;
}

}  // namespace

failure_groups group_failures(const lesson_report& report) {
    static const std::regex todo(R"(not implemented yet: (.+?)(?: in (\S+))?)");
    failure_groups groups;
    groups.folded.assign(report.tests.size(), false);
    std::map<std::string, std::size_t> first_with_reason;
    for (std::size_t i = 0; i < report.tests.size(); ++i) {
        const graded_test& t = report.tests[i];
        if (!failed(t) || t.messages.empty()) continue;
        std::smatch m;
        const std::string line = first_line(t.messages.front());
        if (std::regex_match(line, m, todo)) {
            auto it = std::find_if(groups.unfinished.begin(), groups.unfinished.end(),
                                   [&](const unfinished_part& p) { return p.part == m[1].str() && p.location == m[2].str(); });
            if (it == groups.unfinished.end()) {
                groups.unfinished.push_back({m[1].str(), m[2].str(), {}, 0});
                it = std::prev(groups.unfinished.end());
            }
            it->tests.push_back(i);
            it->points += t.points;
            groups.folded[i] = true;
            continue;
        }
        const std::string reason = reason_of(t);
        const auto [first, inserted] = first_with_reason.emplace(reason, i);
        if (!inserted) {
            groups.same_reason[first->second].push_back(i);
            groups.folded[i] = true;
        }
    }
    return groups;
}

}  // namespace grader
