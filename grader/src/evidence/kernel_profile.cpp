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

}  // namespace

std::optional<fs::path> find_ncu() { return find_cuda_tool("COURSE_NCU", "ncu"); }
std::optional<fs::path> find_cuobjdump() { return find_cuda_tool("COURSE_CUOBJDUMP", "cuobjdump"); }

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

}  // namespace grader
