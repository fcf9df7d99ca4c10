#include "report/report_json.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

namespace grader {

namespace {
using nlohmann::json;

template <typename T>
T field(const json& j, const char* name, T fallback) {
    const auto it = j.find(name);
    if (it == j.end() || it->is_null()) return fallback;
    return it->get<T>();
}
}  // namespace

std::optional<test_status> test_status_from_string(const std::string& name) {
    for (test_status s : {test_status::passed, test_status::failed, test_status::skipped, test_status::crashed,
                          test_status::timed_out, test_status::missing, test_status::not_run})
        if (name == to_string(s)) return s;
    return std::nullopt;
}

lesson_report report_from_json(const std::string& json_text) {
    try {
        const json j = json::parse(json_text);
        if (!j.is_object() || !j.contains("lesson") || !j.contains("tests") || !j["tests"].is_array())
            throw std::runtime_error("it has no \"lesson\" and \"tests\"");
        lesson_report r;
        r.lesson_id = j.at("lesson").get<std::string>();
        r.title = field<std::string>(j, "title", "");
        r.variant = field<std::string>(j, "variant", "");
        r.readme = field<std::string>(j, "readme", "");
        r.device = field<std::string>(j, "device", "");
        r.seed = field<unsigned long long>(j, "seed", 0);
        r.no_gpu_reason = field<std::string>(j, "no_gpu_reason", "");
        r.notes = field<std::vector<std::string>>(j, "notes", {});
        for (const auto& t : j["tests"]) {
            graded_test test;
            test.id = t.at("id").get<std::string>();
            test.title = field<std::string>(t, "title", "");
            test.points = field<int>(t, "points", 0);
            test.performance = field<std::string>(t, "kind", "") == "performance";
            test.gpu = field<bool>(t, "gpu", true);
            const std::string status = field<std::string>(t, "status", "");
            const auto parsed = test_status_from_string(status);
            if (!parsed) throw std::runtime_error(fmt::format("test {} has an unknown status '{}'", test.id, status));
            test.status = *parsed;
            test.messages = field<std::vector<std::string>>(t, "messages", {});
            test.ms = field<double>(t, "ms", 0.0);
            test.figure = field<std::string>(t, "figure", "");
            r.tests.push_back(std::move(test));
        }
        return r;
    } catch (const json::exception& e) {
        throw std::runtime_error(fmt::format("not a grader JSON report: {}", e.what()));
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(fmt::format("not a grader JSON report: {}", e.what()));
    }
}

}  // namespace grader
