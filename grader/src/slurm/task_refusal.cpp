#include "slurm/task_refusal.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "system/atomic_file.hpp"
#include "system/process.hpp"

namespace grader {

namespace fs = std::filesystem;

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(task_refusal, node, lacks, message)

namespace {

fs::path refusals_folder(const fs::path& out) { return out / "slurm" / "refusals"; }

std::string this_node() {
    if (const char* node = std::getenv("SLURMD_NODENAME"); node && *node) return node;
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "its node";
    return name;
}

}  // namespace

fs::path task_refusal_file(const fs::path& out, int chunk) {
    return refusals_folder(out) / fmt::format("task-{}.json", chunk);
}

void record_task_refusal(const fs::path& out, int chunk, std::string lacks, std::string message) {
    const nlohmann::json j = task_refusal{this_node(), std::move(lacks), std::move(message)};
    fs::create_directories(refusals_folder(out));
    write_file_atomically(task_refusal_file(out, chunk), j.dump(2) + "\n");
}

std::optional<task_refusal> load_task_refusal(const fs::path& out, int chunk) {
    const fs::path file = task_refusal_file(out, chunk);
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    try {
        return nlohmann::json::parse(file_text(file)).get<task_refusal>();
    } catch (const std::exception&) {
        return std::nullopt;  // a task cut short while writing: its log still says why
    }
}

void forget_task_refusals(const fs::path& out) {
    std::error_code ec;
    fs::remove_all(refusals_folder(out), ec);
}

}  // namespace grader
