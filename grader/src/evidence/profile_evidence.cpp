#include "evidence/profile_evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "course/testing/evidence.hpp"
#include "evidence/kernel_metrics.hpp"
#include "evidence/kernel_profile.hpp"
#include "system/process.hpp"

namespace fs = std::filesystem;

namespace grader {

namespace {
using clock = std::chrono::steady_clock;

bool ran(const graded_test& t) { return t.status == test_status::passed || t.status == test_status::failed; }

// A failure that is not the speed of the student's kernels (work no kernel
// of theirs did, what the timed calls computed or when: the judge read it
// from the GPU's record and the outputs, or the test from what was linked;
// explained.hpp): a profile of their speed adds nothing (unless every test
// is asked for).
bool explained_without_a_profile(const graded_test& t, bool every_test) {
    return t.status == test_status::failed && t.explained_beyond_the_tools && !every_test;
}
}  // namespace

std::vector<std::string> tests_to_profile(const std::vector<graded_test>& tests, const std::set<std::string>& kernel_speed,
                                          bool every_test) {
    std::vector<std::string> ids;
    for (const auto& t : tests) {
        if (!t.performance || !t.gpu) continue;
        // A failure of its own: not a crash or a hang (which a profile only prolongs).
        if (t.status == test_status::failed && kernel_speed.count(t.id)) {
            if (!explained_without_a_profile(t, every_test)) ids.push_back(t.id);
        }
        // --profile: whatever could run here, held back by correctness or not.
        else if (every_test && (ran(t) || t.status == test_status::not_run)) ids.push_back(t.id);
    }
    return ids;
}

std::vector<std::string> add_profile_evidence(std::vector<graded_test>& tests, const std::set<std::string>& kernel_speed,
                                              const profile_options& options, const fs::path& report_dir,
                                              const list_kernel_sources_fn& list_sources,
                                              const run_under_profiler_fn& run_under) {
    std::vector<std::string> notes;
    std::vector<std::string> explained;
    for (const auto& t : tests)
        if (t.performance && t.gpu && kernel_speed.count(t.id) && explained_without_a_profile(t, options.every_test))
            explained.push_back(t.id);
    if (!explained.empty())
        notes.push_back(fmt::format("Nsight Compute did not profile {}: the failure is not how fast your kernels ran "
                                    "(the test's message says what it is), which is all a profile measures",
                                    fmt::join(explained, ", ")));
    const std::vector<std::string> ids = tests_to_profile(tests, kernel_speed, options.every_test);
    if (ids.empty()) return notes;
    const std::optional<fs::path> ncu = find_ncu();
    if (!ncu) {
        notes.push_back(
            "Nsight Compute (ncu) was not found, so slow tests are explained by their own figures only: install Nsight "
            "Compute (it comes with the CUDA toolkit) or name it in COURSE_NCU.");
        return notes;
    }
    std::error_code ec;
    fs::create_directories(report_dir, ec);
    std::optional<kernel_sources> sources;
    const auto give_up = clock::now() + options.budget;
    std::vector<std::string> unprofiled, cut_short;
    for (const auto& id : ids) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(give_up - clock::now());
        if (left < std::chrono::seconds(5)) {
            unprofiled.push_back(id);
            continue;
        }
        const fs::path csv = report_dir / (course::testing::evidence_file_name(id) + ".metrics.csv");
        fs::remove(csv, ec);  // a profile from another run says nothing of this one
        if (!run_under(id, profile_command(*ncu, csv), std::min(left, options.per_run_limit))) {
            // Stopped at its limit: ncu writes its table when it ends, so what
            // the log holds says nothing of the kernels (not even that none ran).
            cut_short.push_back(id);
            continue;
        }
        const std::string text = file_text(csv);
        std::vector<kernel_measure> kernels = parse_kernel_metrics(text);
        const std::vector<std::string> errors = ncu_errors(text);
        if (kernels.empty() && (text.empty() || !errors.empty())) {
            // ncu could not profile here: no other test will do better.
            const std::string why = text.empty() ? "it wrote no report" : errors.front();
            const bool permission = why.find("ERR_NVGPUCTRPERM") != std::string::npos;
            notes.push_back(fmt::format(
                "Nsight Compute could not profile {} ({}), so slow tests are explained by their own figures only{}",
                id, why,
                permission ? ": an administrator can let every user read the GPU's performance counters (NVIDIA's "
                             "ERR_NVGPUCTRPERM page says how), or run the grader as root on a machine of your own."
                           : "."));
            break;
        }
        if (!sources) sources = list_sources();
        attribute_kernels(kernels, sources->own, sources->test_program);
        graded_test& t = *std::find_if(tests.begin(), tests.end(), [&](const graded_test& g) { return g.id == id; });
        if (options.every_test) {
            t.kernels = kernels;
            t.profiled = true;
        }
        // Only a failure of the kernels' own speed is explained.
        if (t.status == test_status::failed && kernel_speed.count(id))
            t.messages.insert(t.messages.begin(), profile_message(kernels, explain_slow_kernels(kernels)));
    }
    if (!cut_short.empty())
        notes.push_back(fmt::format("Nsight Compute did not finish profiling {} within its time limit, so there is "
                                    "no profile to explain it with",
                                    fmt::join(cut_short, ", ")));
    if (!unprofiled.empty())
        notes.push_back(fmt::format("Nsight Compute did not profile {}: the {} s allowed for profiles were spent",
                                    fmt::join(unprofiled, ", "),
                                    std::chrono::duration_cast<std::chrono::seconds>(options.budget).count()));
    return notes;
}

}  // namespace grader
