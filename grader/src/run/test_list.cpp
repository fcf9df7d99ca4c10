#include "run/test_list.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <stdexcept>

#include "course/testing/harness.hpp"
#include "system/process.hpp"

namespace grader {

using nlohmann::json;

graded_test not_yet_run(const listed_test& listed) {
    graded_test g;
    g.id = listed.id;
    g.title = listed.title;
    g.points = listed.points;
    g.performance = listed.kind == "performance";
    g.gpu = listed.gpu;
    return g;
}

std::vector<listed_test> list_graded_tests(const std::filesystem::path& tests_program,
                                           const std::filesystem::path& log_dir) {
    const auto out = log_dir / "graded-list.json";
    const exit_status status = run_command({tests_program.string(), course::testing::list_flag}, out);
    if (status.signaled || status.code != 0)
        throw std::runtime_error(fmt::format("{} could not list its graded tests ({}):\n{}",
                                             tests_program.filename().string(), status.describe(),
                                             tail_of_file(out, 10)));
    const json list = json::parse(file_text(out));
    std::vector<listed_test> tests;
    for (const auto& t : list.at("tests"))
        tests.push_back({t.at("id"), t.at("title"), t.at("kind"), t.at("points"), t.at("gpu"), t.value("alone", false),
                         t.value("kernel_speed", false), t.value("timed_by_judge", false),
                         t.value("across_streams", false), t.value("record_alone", false)});
    return tests;
}

}  // namespace grader
