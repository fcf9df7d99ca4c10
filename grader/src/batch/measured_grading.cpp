#include "batch/measured_grading.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "system/atomic_file.hpp"

namespace grader {

std::filesystem::path measured_grading_file(const std::filesystem::path& build_dir, const std::string& lesson) {
    return build_dir / "measured-grading" / (lesson + ".json");
}

void save_measured_grading(const std::filesystem::path& build_dir, const measured_grading& m) {
    const nlohmann::json doc{{"lesson", m.lesson},       {"gpu", m.gpu},         {"date", m.date},
                             {"timeout_s", m.timeout_s}, {"runs", m.runs},       {"slowest_s", m.slowest_s},
                             {"slowest", m.slowest},     {"solution_test_ms", m.solution_test_ms}};
    const auto file = measured_grading_file(build_dir, m.lesson);
    std::filesystem::create_directories(file.parent_path());
    write_file_atomically(file, doc.dump(2) + "\n");
}

std::optional<measured_grading> load_measured_grading(const std::filesystem::path& build_dir,
                                                      const std::string& lesson) {
    std::ifstream in(measured_grading_file(build_dir, lesson));
    if (!in) return {};  // none saved
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (!doc.is_object()) return std::nullopt;
    try {
        measured_grading m{doc.at("lesson"), doc.at("gpu"), doc.at("date"), doc.at("timeout_s"),
                           doc.at("runs"),   doc.at("slowest_s"), doc.at("slowest"),
                           doc.value("solution_test_ms", std::map<std::string, double>{})};
        if (m.lesson != lesson || m.timeout_s <= 0 || m.runs <= 0 || !(m.slowest_s > 0)) return std::nullopt;
        return m;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

double seconds_per_submission(const measured_grading& m, int timeout_s) {
    const double longer_limits = std::max(1.0, static_cast<double>(timeout_s) / m.timeout_s);
    return m.slowest_s * longer_limits * measured_grading_margin;
}

test_time_limits test_limits_from(const measured_grading& m, const std::string& gpu,
                                  std::chrono::seconds per_test_limit) {
    test_time_limits limits;
    if (m.gpu != gpu || m.solution_test_ms.empty()) return limits;
    limits.why = fmt::format("{} s plus {} times the reference solution's time for it on this GPU (grader verify "
                             "on {}, {}), {} s more for the first GPU test of a process, which starts CUDA",
                             test_limit_base.count(), test_limit_times, m.gpu, m.date.substr(0, 10),
                             first_gpu_test_extra.count());
    limits.first_gpu_test_extra = first_gpu_test_extra;
    for (const auto& [id, ms] : m.solution_test_ms) {
        if (!(ms >= 0)) continue;
        // Whole seconds, rounded up: what a report says is what applied.
        const auto limit = test_limit_base + std::chrono::ceil<std::chrono::seconds>(
                                                 std::chrono::duration<double, std::milli>(test_limit_times * ms));
        if (limit < per_test_limit) limits.by_test[id] = limit;
    }
    return limits;
}

}  // namespace grader
