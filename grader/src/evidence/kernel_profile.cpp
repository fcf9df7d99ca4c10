#include "evidence/kernel_profile.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "evidence/cuda_tool_path.hpp"
#include "system/process.hpp"

namespace fs = std::filesystem;

namespace grader {

namespace {

// One CSV line's fields: quoted ("a, b"), doubled quotes inside, or bare.
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
            else if (c == '"') quoted = false;
            else fields.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

// "6,208" in `unit` -> nanoseconds; nullopt when it is not a time.
std::optional<double> nanoseconds(const std::string& value, const std::string& unit) {
    const std::optional<double> number = ncu_number(value);
    if (!number) return std::nullopt;
    const double v = *number;
    if (unit == "ns" || unit == "nsecond") return v;
    if (unit == "us" || unit == "usecond") return v * 1e3;
    if (unit == "ms" || unit == "msecond") return v * 1e6;
    if (unit == "s" || unit == "second") return v * 1e9;
    return std::nullopt;
}

}  // namespace

std::optional<fs::path> find_ncu() { return find_cuda_tool("COURSE_NCU", "ncu"); }
std::optional<fs::path> find_cuobjdump() { return find_cuda_tool("COURSE_CUOBJDUMP", "cuobjdump"); }

std::vector<std::string> ncu_command(const fs::path& ncu, const fs::path& csv_file) {
    return {ncu.string(),       "--csv",         "--metrics",       "gpu__time_duration.sum",
            "--print-units",    "base",          "--print-kernel-base", "mangled",
            "--clock-control",  "none",          "--cache-control", "none",
            "--log-file",       csv_file.string()};
}

std::vector<ncu_row> ncu_csv_rows(const std::string& text) {
    std::vector<ncu_row> rows;
    std::vector<std::string> header;
    auto is_header = [](const std::vector<std::string>& fields) {
        const auto has = [&](const char* column) { return std::find(fields.begin(), fields.end(), column) != fields.end(); };
        return has("Kernel Name") && has("Metric Name") && has("Metric Value");
    };
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] != '"') continue;  // ==PROF==, ==WARNING== and ==ERROR== lines
        auto fields = csv_fields(line);
        if (header.empty()) {
            if (is_header(fields)) header = std::move(fields);
            continue;
        }
        ncu_row row;
        for (std::size_t i = 0; i < std::min(fields.size(), header.size()); ++i) row[header[i]] = std::move(fields[i]);
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<std::string> ncu_errors(const std::string& text) {
    std::vector<std::string> errors;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("==ERROR==", 0) == 0 && line.find("The application returned an error code") == std::string::npos)
            errors.push_back(line.substr(10));
    return errors;
}

const std::string& field_of(const ncu_row& row, const std::string& column) {
    static const std::string none;
    const auto it = row.find(column);
    return it == row.end() ? none : it->second;
}

std::optional<double> ncu_number(const std::string& field) {
    std::string digits;
    for (char c : field)
        if (c != ',') digits += c;  // ncu's thousands separators
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (digits.empty() || end != digits.c_str() + digits.size()) return std::nullopt;
    return v;
}

std::vector<kernel_launch> parse_ncu_csv(const std::string& text) {
    std::vector<kernel_launch> launches;
    for (const auto& row : ncu_csv_rows(text)) {
        if (field_of(row, "Metric Name") != "gpu__time_duration.sum") continue;
        if (const auto ns = nanoseconds(field_of(row, "Metric Value"), field_of(row, "Metric Unit")))
            launches.push_back({field_of(row, "Kernel Name"), *ns});
    }
    return launches;
}

std::map<std::string, std::string> parse_kernel_symbols(const std::string& text) {
    std::map<std::string, std::string> kernels;
    std::string source;  // of the member being listed
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("member ", 0) == 0) {
            // member /path/liblesson07_exercise.a:matmul_tiled.cu.o:
            std::string member = line.substr(7);
            while (!member.empty() && (member.back() == ':' || member.back() == '\r')) member.pop_back();
            member = member.substr(member.rfind(':') == std::string::npos ? 0 : member.rfind(':') + 1);
            if (member.size() > 2 && member.compare(member.size() - 2, 2, ".o") == 0)
                member.resize(member.size() - 2);
            source = member;
            continue;
        }
        if (line.find("STO_ENTRY") == std::string::npos) continue;
        std::istringstream words(line);
        std::string word, last;
        while (words >> word) last = word;
        if (!last.empty() && last != "STO_ENTRY") kernels.emplace(last, source);
    }
    return kernels;
}

std::map<std::string, std::string> kernels_compiled_in(const fs::path& cuobjdump, const fs::path& binary,
                                                       const fs::path& log) {
    const exit_status status = run_command({cuobjdump.string(), "-symbols", binary.string()}, log);
    if (status.signaled || status.code != 0) return {};
    return parse_kernel_symbols(file_text(log));
}

kernel_sources kernel_sources_of(const std::optional<fs::path>& cuobjdump, const fs::path& library,
                                 const fs::path& tests_program, const fs::path& log_dir) {
    kernel_sources sources;
    if (!cuobjdump || library.empty()) return sources;
    sources.own = kernels_compiled_in(*cuobjdump, library, log_dir / "library-kernels.txt");
    sources.test_program = kernels_compiled_in(*cuobjdump, tests_program, log_dir / "program-kernels.txt");
    return sources;
}

nlohmann::json attribute_launches(const std::vector<kernel_launch>& launches,
                                  const std::map<std::string, std::string>& own,
                                  const std::map<std::string, std::string>& test_program) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& l : launches) {
        nlohmann::json entry{{"kernel", l.kernel}, {"ns", l.ns}};
        if (const auto it = own.find(l.kernel); it != own.end()) {
            entry["origin"] = "own";
            entry["source"] = it->second;
        } else {
            entry["origin"] = test_program.count(l.kernel) ? "harness" : "foreign";
        }
        list.push_back(entry);
    }
    return {{"profiled", true}, {"launches", list}};
}

nlohmann::json no_profile(const std::string& reason) { return {{"profiled", false}, {"reason", reason}}; }

}  // namespace grader
