#include "checkout/architectures.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace grader {

std::vector<built_architecture> parse_architectures(const std::string& list) {
    std::string entries = list;
    std::replace(entries.begin(), entries.end(), ',', ';');
    std::vector<built_architecture> out;
    static const std::regex entry_shape(R"(\s*(\d+)([af]?)(-real|-virtual)?\s*)");
    std::stringstream in(entries);
    for (std::string entry; std::getline(in, entry, ';');) {
        std::smatch m;
        if (!std::regex_match(entry, m, entry_shape)) continue;  // "native", "all": no number
        built_architecture a;
        a.arch = std::stoi(m[1]);
        a.specific = m[2] == "a";
        a.sass = m[3] != "-virtual";
        a.ptx = m[3] != "-real";
        out.push_back(a);
    }
    return out;
}

std::optional<int> parse_compute_capability(const std::string& text) {
    static const std::regex named(R"(\s*(?:sm_|compute_)?(\d)(\d{1,2})[af]?\s*)", std::regex::icase);
    static const std::regex dotted(R"(\s*(\d{1,2})\.(\d)\s*)");
    std::smatch m;
    if (std::regex_match(text, m, dotted)) return std::stoi(m[1]) * 10 + std::stoi(m[2]);
    if (std::regex_match(text, m, named)) return std::stoi(m.str(1) + m.str(2));
    return std::nullopt;
}

std::string sm_name(int compute_capability) { return fmt::format("sm_{}", compute_capability); }

namespace {
// "sm_75", "sm_75 and sm_80", "sm_75, sm_80 and sm_90".
std::string listed(const std::vector<int>& archs) {
    std::vector<std::string> names;
    for (int a : archs) names.push_back(sm_name(a));
    if (names.size() <= 1) return names.empty() ? "" : names.front();
    const std::string last = names.back();
    names.pop_back();
    return fmt::format("{} and {}", fmt::join(names, ", "), last);
}

bool unknowable(const std::string& list) {
    return list.find("native") != std::string::npos || list.find("all") != std::string::npos ||
           parse_architectures(list).empty();
}
}  // namespace

std::string describe_architectures(const std::string& list) {
    if (unknowable(list)) return fmt::format("CMAKE_CUDA_ARCHITECTURES \"{}\"", list);
    std::vector<int> sass, ptx;
    for (const auto& a : parse_architectures(list)) {
        if (a.sass) sass.push_back(a.arch);
        if (a.ptx) ptx.push_back(a.arch);
    }
    std::string text = sass.empty() ? "no machine code" : "machine code for " + listed(sass);
    text += ptx.empty() ? " and no PTX" : " and PTX for " + listed(ptx);
    return text;
}

gpu_fit fit_of(const std::string& list, int cc) {
    if (unknowable(list)) return gpu_fit::unknown;
    bool ptx = false;
    for (const auto& a : parse_architectures(list)) {
        const bool same_family = a.specific ? a.arch == cc : a.arch / 10 == cc / 10 && a.arch <= cc;
        if (a.sass && same_family) return gpu_fit::machine_code;
        if (a.ptx && (a.specific ? a.arch == cc : a.arch <= cc)) ptx = true;
    }
    return ptx ? gpu_fit::ptx : gpu_fit::none;
}

std::string how_to_build_for_every_gpu(const manifest& m) {
    return fmt::format("build for every GPU from sm_75 with ./setup.sh --preset portable in {} (then grade with "
                       "--build-dir {})",
                       m.source_dir.string(), (m.source_dir / "build-portable").string());
}

std::string architecture_problem(const manifest& m, int cc, const std::string& gpu) {
    if (fit_of(m.cuda_architectures, cc) != gpu_fit::none) return "";
    std::string entries = m.cuda_architectures;
    std::replace(entries.begin(), entries.end(), ',', ';');
    return fmt::format(
        "{} is {}, but the build in {} holds {} (CMAKE_CUDA_ARCHITECTURES {}), so every GPU test would fail there "
        "with \"no kernel image is available\" (a build folder configured where there is no GPU, a login node, is "
        "built for sm_90 only). Fix: {}; or add this GPU to this build: cmake -B {} "
        "-DCMAKE_CUDA_ARCHITECTURES=\"{};{}\" && cmake --build {}",
        gpu, sm_name(cc), m.build_dir.string(), describe_architectures(m.cuda_architectures), m.cuda_architectures,
        how_to_build_for_every_gpu(m), m.build_dir.string(), entries, cc, m.build_dir.string());
}

}  // namespace grader
