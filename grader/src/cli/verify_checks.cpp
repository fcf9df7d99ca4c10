#include "cli/verify_checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace grader {

namespace {
const graded_test* find(const lesson_report& r, const std::string& id) {
    auto it = std::find_if(r.tests.begin(), r.tests.end(), [&](const graded_test& t) { return t.id == id; });
    return it == r.tests.end() ? nullptr : &*it;
}

std::string all_messages(const graded_test& t) {
    std::string text;
    for (const auto& m : t.messages) text += m + "\n";
    return text;
}

std::string short_text(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s.size() > 160 ? s.substr(0, 157) + "..." : s;
}

// A GPU machine runs everything: a skipped test verifies nothing.
void flag_skips(const lesson_report& r, std::vector<std::string>& problems) {
    for (const auto& t : r.tests)
        if (t.status == test_status::skipped) problems.push_back(fmt::format("{} was skipped: {}", t.id, short_text(all_messages(t))));
}
}  // namespace

expectation parse_expectation(const std::string& json_text) {
    const auto j = nlohmann::json::parse(json_text);
    expectation e;
    e.mistake = j.value("mistake", "");
    e.must_fail = j.value("must_fail", std::vector<std::string>{});
    e.must_pass = j.value("must_pass", std::vector<std::string>{});
    e.status = j.value("status", std::map<std::string, std::string>{});
    const nlohmann::json diagnoses = j.value("message_contains", nlohmann::json::object());
    for (const auto& [id, said] : diagnoses.items()) {
        // A text, or a list of texts of which the report must give one.
        const auto is_text = [](const nlohmann::json& s) { return s.is_string(); };
        std::vector<std::string> texts;
        if (said.is_string())
            texts.push_back(said.get<std::string>());
        else if (said.is_array() && !said.empty() && std::all_of(said.begin(), said.end(), is_text))
            texts = said.get<std::vector<std::string>>();
        else
            throw std::invalid_argument("\"message_contains\": {\"" + id +
                                        "\": ...} must be a text, or a list of texts of which the report gives one");
        e.message_contains[id] = std::move(texts);
    }
    if (j.contains("score")) e.score = j.at("score").get<int>();
    if (j.contains("max_score")) e.max_score = j.at("max_score").get<int>();
    e.note_contains = j.value("note_contains", "");
    if (j.contains("needs")) {
        const auto& needs = j.at("needs");
        const std::string cc = needs.value("compute_capability", "");
        int major = 0, minor = 0;
        if (std::sscanf(cc.c_str(), "%d.%d", &major, &minor) != 2)
            throw std::invalid_argument("\"needs\": {\"compute_capability\": \"" + cc + "\"} is not major.minor, e.g. \"8.0\"");
        e.needs_compute_capability = std::pair{major, minor};
        e.needs_why = needs.value("why", "");
    }
    return e;
}

std::optional<std::string> unmet_need(const expectation& e, int major, int minor) {
    if (!e.needs_compute_capability || std::pair{major, minor} >= *e.needs_compute_capability) return std::nullopt;
    const auto [need_major, need_minor] = *e.needs_compute_capability;
    return fmt::format("cannot show on this GPU (sm_{}{}): it needs sm_{}{} or newer{}", major, minor, need_major,
                       need_minor, e.needs_why.empty() ? "" : ", " + e.needs_why);
}

std::vector<std::string> check_full_marks(const lesson_report& r) {
    std::vector<std::string> problems;
    for (const auto& t : r.tests)
        if (t.status != test_status::passed && t.status != test_status::skipped)
            problems.push_back(fmt::format("{} is {}: {}", t.id, to_string(t.status), short_text(all_messages(t))));
    flag_skips(r, problems);
    return problems;
}

textbook_form parse_textbook_form(const std::string& json_text) {
    const auto j = nlohmann::json::parse(json_text);
    textbook_form f;
    f.technique = j.value("technique", "");
    f.speed_tests = j.value("speed_tests", std::vector<std::string>{});
    return f;
}

std::vector<std::string> check_textbook_form(const lesson_report& r, const textbook_form& form) {
    std::vector<std::string> problems = check_full_marks(r);
    for (const auto& id : form.speed_tests) {
        const graded_test* t = find(r, id);
        if (!t) problems.push_back(fmt::format("{} is not among the lesson's tests, but about.json says it answers it", id));
        else if (!t->performance) problems.push_back(fmt::format("{} is not a speed test", id));
    }
    return problems;
}

std::vector<std::string> check_loses_all_correctness(const lesson_report& r) {
    std::vector<std::string> problems;
    for (const auto& t : r.tests) {
        if (t.performance) continue;
        if (t.status == test_status::passed) problems.push_back(fmt::format("{} passed on the untouched skeleton", t.id));
        if (t.status == test_status::failed && t.messages.empty())
            problems.push_back(fmt::format("{} failed without saying why", t.id));
    }
    flag_skips(r, problems);
    return problems;
}

std::vector<std::string> check_expectation(const lesson_report& r, const expectation& e) {
    std::vector<std::string> problems;
    auto status_of = [&](const std::string& id) {
        const graded_test* t = find(r, id);
        return t ? std::string(to_string(t->status)) : std::string("absent");
    };
    for (const auto& id : e.must_fail)
        if (status_of(id) == "passed") problems.push_back(fmt::format("{} passed but should catch: {}", id, e.mistake));
    for (const auto& id : e.must_pass)
        if (status_of(id) != "passed")
            problems.push_back(fmt::format("{} is {}, but only the tests that catch the mistake may suffer", id, status_of(id)));
    for (const auto& [id, status] : e.status)
        if (status_of(id) != status) problems.push_back(fmt::format("{} is {}, expected {}", id, status_of(id), status));
    for (const auto& [id, texts] : e.message_contains) {
        const graded_test* t = find(r, id);
        const std::string messages = t ? all_messages(*t) : "";
        const bool says_one = std::any_of(texts.begin(), texts.end(),
                                          [&](const std::string& text) { return messages.find(text) != std::string::npos; });
        if (!says_one)
            problems.push_back(fmt::format("the report on {} does not say \"{}\"; it says: {}", id,
                                           fmt::join(texts, "\" or \""), short_text(messages)));
    }
    if (e.score && r.score() != *e.score) problems.push_back(fmt::format("scored {}, expected {}", r.score(), *e.score));
    if (e.max_score && r.max_score() != *e.max_score)
        problems.push_back(fmt::format("out of {}, expected out of {}", r.max_score(), *e.max_score));
    if (!e.note_contains.empty()) {
        std::string notes;
        for (const auto& n : r.notes) notes += n + "\n";
        if (notes.find(e.note_contains) == std::string::npos)
            problems.push_back(fmt::format("the report's notes do not say \"{}\"; they say: {}", e.note_contains,
                                           short_text(notes)));
    }
    flag_skips(r, problems);
    return problems;
}

}  // namespace grader
