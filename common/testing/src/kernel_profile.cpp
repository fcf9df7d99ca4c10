#include "course/testing/kernel_profile.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "course/testing/evidence.hpp"

namespace course::testing {

namespace {

struct launch {
    std::string kernel;
    std::string origin;  // own, harness, foreign
    std::string source;  // for own kernels: the student's file it was compiled from
    double ns = 0;
};

// What the grader wrote; nullopt when it profiled nothing for this test.
std::optional<std::vector<launch>> read_profile(const std::string& path, std::string& why_not) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.value("profiled", false)) {
        why_not = doc.is_discarded() ? "unreadable" : doc.value("reason", "");
        return std::nullopt;
    }
    std::vector<launch> launches;
    for (const auto& l : doc.value("launches", nlohmann::json::array()))
        launches.push_back({l.value("kernel", ""), l.value("origin", ""), l.value("source", ""), l.value("ns", 0.0)});
    return launches;
}

// "matmul_tiled.cu" -> "matmul_tiled": the function a lesson's file holds.
std::string function_of(const std::string& source) { return std::filesystem::path(source).stem().string(); }

bool looks_like_cublas(const std::string& kernel) {
    for (const char* mark : {"cublas", "xmma", "gemm", "cutlass", "sgemm"})
        if (kernel.find(mark) != std::string::npos) return true;
    return false;
}

// Foreign kernels are reported once per test, by the first figure that finds them.
std::set<std::string>& tests_told_of_foreign_kernels() {
    static std::set<std::string> told;
    return told;
}

}  // namespace

std::optional<double> observe_kernel_ms(std::string_view what, const std::string& source, int calls,
                                        const std::function<double()>& measure_ms) {
    if (current_evidence_mode() != evidence_mode::judge) return observe(what, measure_ms());
    // The recorded figure is read either way: the recorded steps stay in step.
    const double recorded = observe(what, 0.0);
    const std::string path = grader_file_for_this_test(kernel_profile_suffix);
    std::string why_not;
    const auto launches = path.empty() ? std::nullopt : read_profile(path, why_not);
    if (!launches) return recorded;

    const std::string function = function_of(source);
    int own = 0;
    double own_ns = 0;
    std::vector<std::string> foreign;
    for (const auto& l : *launches) {
        if (l.origin == "own" && l.source == source) {
            ++own;
            own_ns += l.ns;
        } else if (l.origin == "foreign") {
            foreign.push_back(l.kernel);
        }
    }
    const std::string test = std::filesystem::path(path).filename().string();
    if (!foreign.empty() && tests_told_of_foreign_kernels().insert(test).second) {
        const std::string& first = foreign.front();
        if (own == 0 && looks_like_cublas(first))
            ADD_FAILURE() << fmt::format(
                "cuBLAS ran inside {}: the profiler saw {} launch(es) of library kernels (the first: {}) and "
                "none of a kernel compiled from {}. A hand-written version must compute the product itself.",
                function, foreign.size(), first, source);
        else
            ADD_FAILURE() << fmt::format(
                "kernels that are not from your code ran during this test: the profiler saw {} launch(es) of {}{}. "
                "The speed graded here is that of your own kernels; calling a library (however it is reached) "
                "earns nothing.",
                foreign.size(), first, looks_like_cublas(first) ? " (cuBLAS)" : "");
        return std::nullopt;
    }
    if (own == 0) {
        ADD_FAILURE() << fmt::format(
            "no kernel of yours ran inside {}: the profiler saw no kernel compiled from {} during the {} calls, "
            "so the work was done on the host (or not at all). Launch your kernel in {}.",
            function, source, calls, function);
        return std::nullopt;
    }
    if (own < calls) {
        ADD_FAILURE() << fmt::format(
            "{} launched a kernel of its own {} time(s) in {} calls: every call must do the work (a result kept "
            "from an earlier call is not a speed).",
            function, own, calls);
        return std::nullopt;
    }
    return own_ns / calls / 1e6;
}

}  // namespace course::testing
