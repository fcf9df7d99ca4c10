#include "batch/engine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "batch/result_cache.hpp"
#include "checkout/architectures.hpp"
#include "checkout/context.hpp"
#include "course/device_info.hpp"
#include "system/process.hpp"

namespace grader {

int graders_for(int cpus, int gpus) { return std::clamp(cpus / (3 * std::max(1, gpus)), 2, 5); }

std::vector<gpu_slot> visible_gpus() {
    const auto& status = course::device_status();
    if (!status.available) return {};
    std::vector<std::string> ids;
    if (const char* listed = std::getenv("CUDA_VISIBLE_DEVICES"); listed && *listed) {
        std::istringstream in(listed);
        for (std::string id; std::getline(in, id, ',');) ids.push_back(id);
    }
    std::vector<gpu_slot> gpus;
    for (int i = 0; i < status.count; ++i) {
        gpu_slot slot{i, i < static_cast<int>(ids.size()) ? ids[i] : std::to_string(i), "", 0};
        try {
            const auto device = course::query_device(i);
            slot.name = device.summary();
            slot.compute_capability = device.major * 10 + device.minor;
        } catch (const std::exception&) {
            slot.name = "GPU " + slot.id;
        }
        gpus.push_back(slot);
    }
    return gpus;
}

std::optional<fs::path> batch_sandbox(bool no_sandbox) {
    if (no_sandbox) return std::nullopt;
    const bubblewrap_search found = search_bubblewrap();
    if (!found.bwrap) throw grading_refused(to_string(grading_need::sandbox), sandbox_refusal(found.problem));
    return found.bwrap;
}

void refuse_without_grading_needs(const grading_facts& facts, const std::vector<listed_test>& tests, bool gpus_here,
                                  bool no_sandbox) {
    const std::vector<grading_check> missing = missing_for_batch(facts, tests, gpus_here, no_sandbox);
    if (missing.empty()) return;
    std::vector<std::string> names;
    for (const grading_check& c : missing) names.push_back(to_string(c.need));
    throw grading_refused(fmt::format("{}", fmt::join(names, ", ")), grading_refusal(missing));
}

std::vector<int> declared_gpu_architectures(const std::vector<std::string>& declared) {
    std::vector<int> out;
    for (const auto& text : declared) {
        const auto cc = parse_compute_capability(text);
        if (!cc)
            throw user_error(usage_error, fmt::format("--gpu-arch {}: write a GPU architecture such as sm_80, 8.0 or "
                                                      "80 (an A100 is sm_80, an L4 sm_89, a T4 sm_75, an H100 sm_90)",
                                                      text));
        out.push_back(*cc);
    }
    return out;
}

std::string gpus_the_build_cannot_run(const manifest& m, const std::vector<gpu_slot>& gpus,
                                      const std::vector<int>& declared) {
    std::vector<std::string> problems;
    for (const auto& g : gpus) {
        if (g.compute_capability == 0) continue;  // not known: the tests will say
        const std::string problem = architecture_problem(m, g.compute_capability, fmt::format("GPU {} ({})", g.id, g.name));
        if (!problem.empty()) problems.push_back(problem);
    }
    for (int cc : declared) {
        const std::string problem = architecture_problem(m, cc, fmt::format("the GPU declared with --gpu-arch {}", sm_name(cc)));
        if (!problem.empty()) problems.push_back(problem);
    }
    return fmt::format("{}", fmt::join(problems, "\n"));
}

}  // namespace grader
