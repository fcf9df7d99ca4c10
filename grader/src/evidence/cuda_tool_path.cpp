#include "evidence/cuda_tool_path.hpp"

#include <cstdlib>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace grader {

std::optional<fs::path> find_cuda_tool(const char* variable, const std::string& name) {
    std::vector<fs::path> candidates;
    if (const char* chosen = std::getenv(variable); chosen && *chosen) candidates.emplace_back(chosen);
    if (const char* path = std::getenv("PATH")) {
        std::istringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty()) candidates.push_back(fs::path(dir) / name);
    }
    candidates.push_back(fs::path("/usr/local/cuda/bin") / name);
    for (const auto& candidate : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

}  // namespace grader
