#include "checkout/manifest.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace grader {

namespace {
std::string lowercase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

fs::path self_executable() {
    std::error_code ec;
    return fs::read_symlink("/proc/self/exe", ec);
}
}  // namespace

const variant_info* lesson_info::variant(const std::string& name) const {
    auto it = variants.find(name);
    return it == variants.end() ? nullptr : &it->second;
}

namespace {
std::vector<std::string> variants_named(const std::map<std::string, variant_info>& variants, const std::string& prefix) {
    std::vector<std::string> names;
    for (const auto& [name, _] : variants)
        if (name.rfind(prefix, 0) == 0) names.push_back(name.substr(prefix.size()));
    return names;
}
}  // namespace

std::vector<std::string> lesson_info::mutants() const { return variants_named(variants, "mutant_"); }
std::vector<std::string> lesson_info::cheats() const { return variants_named(variants, "cheat_"); }
std::vector<std::string> lesson_info::textbooks() const { return variants_named(variants, "textbook_"); }

const lesson_info* manifest::find(const std::string& raw) const {
    const std::string name = lowercase(raw);
    for (const auto& lesson : lessons) {
        if (name == lesson.id || name == lesson.dir || name == lesson.slug) return &lesson;
        if (all_digits(name) && std::stoi(name) == lesson.number) return &lesson;
        if (name.rfind("lesson", 0) == 0 && all_digits(name.substr(6)) &&
            std::stoi(name.substr(6)) == lesson.number)
            return &lesson;
        if (std::find(lesson.aliases.begin(), lesson.aliases.end(), name) != lesson.aliases.end())
            return &lesson;
    }
    return nullptr;
}

std::string manifest::valid_names() const {
    std::vector<std::string> names;
    for (const auto& lesson : lessons) names.push_back(fmt::format("{} ({})", lesson.id, lesson.slug));
    return fmt::format("{}", fmt::join(names, ", "));
}

fs::path manifest::cuda_toolkit_dir() const {
    if (cuda_compiler.empty()) return {};
    std::error_code ec;
    const fs::path nvcc = fs::canonical(cuda_compiler, ec);
    if (ec) return {};
    return nvcc.parent_path().parent_path();  // <toolkit>/bin/nvcc
}

manifest parse_manifest(const std::string& json_text) {
    const auto j = nlohmann::json::parse(json_text);
    manifest m;
    m.source_dir = j.at("source_dir").get<std::string>();
    m.build_dir = j.at("build_dir").get<std::string>();
    m.cmake = j.at("cmake").get<std::string>();
    m.cuda_compiler = j.value("cuda_compiler", "");
    m.cuda_compiler_version = j.value("cuda_compiler_version", "");
    m.cuda_architectures = j.value("cuda_architectures", "");
    m.gpu_recorder = j.value("gpu_recorder", "");
    m.threads_only_launcher = j.value("threads_only_launcher", "");
    m.edition = j.value("edition", "instructor");
    for (const auto& l : j.at("lessons")) {
        lesson_info lesson;
        lesson.id = l.at("id");
        lesson.number = l.at("number");
        lesson.dir = l.at("dir");
        lesson.slug = l.at("slug");
        lesson.title = l.at("title");
        lesson.aliases = l.value("aliases", std::vector<std::string>{});
        lesson.lesson_dir = l.at("lesson_dir").get<std::string>();
        lesson.sources = l.value("sources", std::vector<std::string>{});
        lesson.baselines = l.value("baselines", std::vector<std::string>{});
        lesson.withheld = l.value("withheld", std::vector<std::string>{});
        for (const auto& [name, v] : l.at("variants").items()) {
            variant_info info;
            info.source_dir = v.at("source_dir").get<std::string>();
            info.tests_target = v.at("tests_target");
            info.tests = v.at("tests").get<std::string>();
            info.library = v.value("library", "");
            info.bench_target = v.value("bench_target", "");
            info.bench = v.value("bench", "");
            lesson.variants.emplace(name, std::move(info));
        }
        m.lessons.push_back(std::move(lesson));
    }
    std::sort(m.lessons.begin(), m.lessons.end(),
              [](const lesson_info& a, const lesson_info& b) { return a.number < b.number; });
    return m;
}

manifest load_manifest(const fs::path& build_dir) {
    std::ifstream in(build_dir / "course_manifest.json");
    if (!in) throw std::runtime_error(fmt::format("cannot read {}", (build_dir / "course_manifest.json").string()));
    std::stringstream text;
    text << in.rdbuf();
    return parse_manifest(text.str());
}

std::optional<fs::path> find_build_dir(const std::optional<fs::path>& explicit_dir) {
    auto has_manifest = [](const fs::path& dir) { return fs::exists(dir / "course_manifest.json"); };
    if (explicit_dir) {
        if (has_manifest(*explicit_dir)) return fs::absolute(*explicit_dir);
        return std::nullopt;
    }
    if (const char* env = std::getenv("COURSE_BUILD_DIR"); env && has_manifest(env))
        return fs::absolute(env);
    if (const fs::path self = self_executable(); !self.empty()) {
        const fs::path above = self.parent_path().parent_path();  // build/bin/grader -> build
        if (has_manifest(above)) return above;
    }
    std::error_code ec;
    for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
        if (has_manifest(dir / "build")) return dir / "build";
        if (has_manifest(dir)) return dir;
        if (dir == dir.root_path()) break;
    }
    return std::nullopt;
}

}  // namespace grader
