#include "checkout/context.hpp"

#include <fmt/format.h>

namespace grader {

manifest open_build(const std::optional<fs::path>& build_dir) {
    const auto dir = find_build_dir(build_dir);
    if (!dir) {
        if (build_dir)
            throw user_error(build_error, fmt::format("{} is not a configured build folder (no course_manifest.json).\n"
                                                      "Configure it first: cmake --preset default", build_dir->string()));
        throw user_error(build_error,
                         "no build folder found. From the course's top folder run ./setup.sh\n"
                         "(or: cmake --preset default && cmake --build build), or pass --build-dir.");
    }
    try {
        return load_manifest(*dir);
    } catch (const std::exception& e) {
        throw user_error(build_error, fmt::format("{}: {}\nReconfigure: cmake --preset default", dir->string(), e.what()));
    }
}

const lesson_info& find_lesson(const manifest& m, const std::string& name) {
    if (const lesson_info* lesson = m.find(name)) return *lesson;
    throw user_error(usage_error, fmt::format("unknown lesson '{}'. Valid lessons: {}.\n"
                                              "A lesson can be named lesson01, 1 or vecadd.",
                                              name, m.valid_names()));
}

void check_output_path(const manifest& m, const fs::path& output) {
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(fs::absolute(output), ec);
    for (const char* protected_dir : {"exercises", "solutions", "lessons", "common", "grader"}) {
        const fs::path dir = fs::weakly_canonical(m.source_dir / protected_dir, ec);
        const auto rel = target.lexically_relative(dir);
        if (!rel.empty() && *rel.begin() != "..")
            throw user_error(usage_error, fmt::format("refusing to write {}: it is inside the course's {}/ folder. "
                                                      "Choose another path for -o.", output.string(), protected_dir));
    }
}

}  // namespace grader
