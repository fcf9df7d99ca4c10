#include "run/test_events.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "run/run_options.hpp"
#include "system/process.hpp"

namespace grader {

namespace {
void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}
}  // namespace

std::string string_field(const nlohmann::json& event, const char* name) {
    const auto it = event.find(name);
    return it != event.end() && it->is_string() ? it->get<std::string>() : std::string();
}

outcome read_end_event(const nlohmann::json& event) {
    outcome result;
    const std::string s = string_field(event, "status");
    result.left_to_judge = s == "deferred";
    result.status = s == "passed" || s == "deferred" ? test_status::passed
                    : s == "skipped"                  ? test_status::skipped
                                                      : test_status::failed;
    if (const auto m = event.find("messages"); m != event.end() && m->is_array()) {
        for (const auto& text : *m) {
            if (!text.is_string()) continue;
            if (result.messages.size() == max_messages_per_test) break;
            std::string message = clean_message(text.get<std::string>());
            if (message.size() > max_message_bytes) message = message.substr(0, max_message_bytes) + " [...]";
            result.messages.push_back(std::move(message));
        }
    }
    if (std::string figure = string_field(event, "figure"); !figure.empty()) {
        std::replace(figure.begin(), figure.end(), '\n', ' ');
        result.figure = figure.size() > max_figure_bytes ? figure.substr(0, max_figure_bytes) + " [...]" : figure;
    }
    if (const auto ms = event.find("ms"); ms != event.end() && ms->is_number()) result.ms = ms->get<double>();
    if (const auto e = event.find("explained_beyond_the_tools"); e != event.end() && e->is_boolean())
        result.explained_beyond_the_tools = result.status == test_status::failed && e->get<bool>();
    if (result.status == test_status::failed && result.messages.empty())
        result.messages.push_back("the test failed without a message");
    return result;
}

std::string clean_message(const std::string& raw) {
    std::string text = raw;
    // ADD_FAILURE() << "..." arrives as "Failed\n...": the word adds nothing.
    if (text.rfind("Failed\n", 0) == 0) text.erase(0, 7);
    // SCOPED_TRACE context: "...\nGoogle Test trace:\nfile.cpp:12: n = 129" -> "... (n = 129)"
    std::string context;
    if (auto at = text.find("\nGoogle Test trace:\n"); at != std::string::npos) {
        std::istringstream trace(text.substr(at + 20));
        for (std::string line; std::getline(trace, line);) {
            const auto colon = line.find(": ");
            if (!line.empty()) context += (context.empty() ? "" : "; ") + (colon == std::string::npos ? line : line.substr(colon + 2));
        }
        text.erase(at);
    }
    // Exceptions: C++ exception with description "X" thrown in the test body.
    const std::string prefix = "C++ exception with description \"";
    if (text.rfind(prefix, 0) == 0) {
        const auto end = text.rfind("\" thrown in ");
        std::string what = text.substr(prefix.size(), end == std::string::npos ? std::string::npos : end - prefix.size());
        text = "threw " + what;
        if (what.rfind("not implemented yet:", 0) == 0)
            text = what + "\nthis part is unfinished: write it, then delete the course::todo(...) call";
    }
    replace_all(text, "\n\n", "\n");
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (!context.empty()) text += "\n(with " + context + ")";
    return text;
}

std::string last_output(const std::filesystem::path& log) {
    std::istringstream all(tail_of_file(log, 40));
    std::vector<std::string> own;
    for (std::string line; std::getline(all, line);)
        if (!line.empty() && line.front() != '[' && line.rfind("Note: Google Test filter", 0) != 0 &&
            line.rfind("seed ", 0) != 0)
            own.push_back(line);
    if (own.empty()) return {};
    std::string text = "last output:";
    for (std::size_t i = own.size() > 6 ? own.size() - 6 : 0; i < own.size(); ++i) {
        std::string line = own[i];
        // A megabyte-long line would make the report that size: its start is enough.
        if (line.size() > max_quoted_line_bytes)
            line = fmt::format("{} ... ({} more characters)", line.substr(0, max_quoted_line_bytes),
                               line.size() - max_quoted_line_bytes);
        text += "\n" + line;
    }
    return text;
}

}  // namespace grader
