#include "checkout/progress.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>

namespace grader {

progress_store::progress_store(std::filesystem::path file) : file_(std::move(file)) {
    std::ifstream in(file_);
    if (!in) return;  // no progress yet
    try {
        const auto j = nlohmann::json::parse(in);
        for (const auto& [id, p] : j.at("lessons").items())
            lessons_[id] = {p.at("best").get<int>(), p.at("max").get<int>(), p.value("when", "")};
        const auto hints = j.value("hints_seen", nlohmann::json::object());  // a named copy: items() only refers to it
        for (const auto& [id, n] : hints.items()) hints_seen_[id] = n.get<int>();
    } catch (const std::exception&) {
        lessons_.clear();
        hints_seen_.clear();
        warning_ = fmt::format("{} was unreadable; progress starts afresh (your code is untouched)",
                               file_.filename().string());
    }
}

const lesson_progress* progress_store::get(const std::string& id) const {
    auto it = lessons_.find(id);
    return it == lessons_.end() ? nullptr : &it->second;
}

bool progress_store::record(const std::string& id, int score, int max) {
    auto it = lessons_.find(id);
    if (it != lessons_.end() && it->second.max == max && it->second.best >= score) return false;
    const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    lessons_[id] = {score, max, fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now)};
    return true;
}

int progress_store::hints_seen(const std::string& id) const {
    auto it = hints_seen_.find(id);
    return it == hints_seen_.end() ? 0 : it->second;
}

void progress_store::set_hints_seen(const std::string& id, int count) { hints_seen_[id] = count; }

void progress_store::save() const {
    nlohmann::json j;
    j["version"] = 1;
    j["lessons"] = nlohmann::json::object();
    for (const auto& [id, p] : lessons_) j["lessons"][id] = {{"best", p.best}, {"max", p.max}, {"when", p.when}};
    j["hints_seen"] = hints_seen_;
    // Write a temporary file and rename it over the old one: a crash midway
    // never leaves a half-written file.
    const auto tmp = file_.string() + ".tmp";
    {
        std::ofstream out(tmp);
        out << j.dump(2) << "\n";
    }
    std::filesystem::rename(tmp, file_);
}

}  // namespace grader
