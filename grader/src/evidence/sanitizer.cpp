#include "evidence/sanitizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "evidence/cuda_tool_path.hpp"

namespace fs = std::filesystem;

namespace grader {

const char* to_string(sanitizer_tool tool) {
    switch (tool) {
        case sanitizer_tool::memcheck: return "memcheck";
        case sanitizer_tool::racecheck: return "racecheck";
        case sanitizer_tool::synccheck: return "synccheck";
        case sanitizer_tool::initcheck: return "initcheck";
    }
    return "?";
}

std::optional<fs::path> find_compute_sanitizer() {
    return find_cuda_tool("COURSE_COMPUTE_SANITIZER", "compute-sanitizer");
}

std::vector<std::string> sanitizer_command(const fs::path& compute_sanitizer, sanitizer_tool tool,
                                           const fs::path& report_file, const std::vector<std::string>& only_kernels) {
    std::vector<std::string> args{
        compute_sanitizer.string(), "--tool", to_string(tool),
        // The report goes to a file of its own, not into the test's output.
        "--log-file", report_file.string(),
        // A handful of errors tells what is wrong; thousands (one per thread)
        // would only slow the run. The summary still counts them all.
        "--print-limit", std::to_string(sanitizer_print_limit),
        "--error-exitcode", std::to_string(sanitizer_found_errors_exit_code),
        // Failed CUDA calls are the test's business (a test may provoke one on
        // purpose, such as a launch with 2048 threads): only kernels are checked.
        "--report-api-errors", "no"};
    if (tool == sanitizer_tool::racecheck) {
        // The analysis report: each race once, by its two lines of code (the
        // write and the read). The hazard report names a block and two
        // threads too, but the tool then records every hazard of every
        // launch: on an H200, racecheck of lesson07's missing barrier over
        // Tiled.HonoursStream (130 x 97 x 70) ran past 60 s with it, the GPU
        // busy throughout, and took 3.4 s with this one.
        args.insert(args.end(), {"--racecheck-report", "analysis"});
    }
    // Each filter adds kernels to check; kne= is a whole mangled name.
    for (const auto& kernel : only_kernels) args.insert(args.end(), {"--kernel-name", "kne=" + kernel});
    return args;
}

namespace {

// A report line: the tool's prefix ("========= ") taken off, and how far the
// rest is indented (a new error starts at 0; its details are indented).
struct report_line {
    int indent = 0;
    std::string text;
};

std::optional<report_line> read_line(const std::string& raw) {
    std::size_t at = 0;
    while (at < raw.size() && raw[at] == '=') ++at;
    if (at < 3) return std::nullopt;  // not the tool's: the program's own output
    if (at < raw.size() && raw[at] == ' ') ++at;
    report_line line;
    while (at < raw.size() && raw[at] == ' ') ++at, ++line.indent;
    line.text = raw.substr(at);
    while (!line.text.empty() && (line.text.back() == '\r' || line.text.back() == ' ')) line.text.pop_back();
    return line;
}

// "lesson01::vecadd_kernel(course::device_span<const float>, ...)" -> "vecadd_kernel":
// the parameters and the namespaces go, template arguments stay.
std::string short_kernel_name(std::string name) {
    if (name.rfind("void ", 0) == 0) name.erase(0, 5);  // older reports give the return type
    if (!name.empty() && name.back() == ')') {
        int depth = 0;
        for (std::size_t i = name.size(); i-- > 0;) {
            if (name[i] == ')') ++depth;
            if (name[i] == '(' && --depth == 0) {
                name.erase(i);
                break;
            }
        }
    }
    int angle = 0;
    std::size_t last_scope = std::string::npos;
    for (std::size_t i = 0; i + 1 < name.size(); ++i) {
        if (name[i] == '<') ++angle;
        if (name[i] == '>') --angle;
        if (angle == 0 && name[i] == ':' && name[i + 1] == ':') last_scope = i;
    }
    return last_scope == std::string::npos ? name : name.substr(last_scope + 2);
}

// Where an access was, as the report writes it after "at ":
//   kernel(args)+0x70 in /path/file.cu:18     (CUDA 12 and later)
//   kernel(args)+0x70                          (built without -lineinfo)
//   0x70 in /path/file.cu:18:kernel(args)      (older reports)
struct code_location {
    std::string kernel, location;
};

code_location read_location(std::string text) {
    if (const auto hazards = text.find(" ["); hazards != std::string::npos) text.erase(hazards);  // "[4 hazards]"
    code_location where;
    static const std::regex file_line(R"((.*):(\d+))");
    std::smatch m;
    if (text.rfind("0x", 0) == 0) {
        const auto in = text.find(" in ");
        if (in == std::string::npos) return where;
        const std::string rest = text.substr(in + 4);
        static const std::regex file_line_kernel(R"(([^:]*):(\d+):(.*))");
        if (std::regex_match(rest, m, file_line_kernel)) {
            where.location = fs::path(m[1].str()).filename().string() + ":" + m[2].str();
            where.kernel = short_kernel_name(m[3].str());
        } else {
            where.kernel = short_kernel_name(rest);
        }
        return where;
    }
    const auto in = text.rfind(" in ");
    std::string code = in == std::string::npos ? text : text.substr(0, in);
    if (in != std::string::npos) {
        const std::string file = text.substr(in + 4);
        if (std::regex_match(file, m, file_line))
            where.location = fs::path(m[1].str()).filename().string() + ":" + m[2].str();
    }
    if (const auto offset = code.rfind("+0x"); offset != std::string::npos) code.erase(offset);
    where.kernel = short_kernel_name(code);
    return where;
}

std::string memory_space(const std::string& qualifier) {
    if (qualifier == "__global__") return " to global memory";
    if (qualifier == "__shared__") return " to shared memory";
    if (qualifier == "__local__") return " to local memory";
    return "";
}

// racecheck's analysis report: the finding's kind; its two accesses follow.
const std::string race_between = "race on shared memory";

// The error a header line opens, or nothing for lines that open none.
std::optional<sanitizer_finding> open_finding(sanitizer_tool tool, const std::string& header) {
    static const std::regex invalid_access(R"(Invalid (__\w+__ )?(read|write|atomic)s? of size (\d+)(?: bytes?)?)");
    static const std::regex uninitialised(R"(Uninitialized (__\w+__ )?memory read of size (\d+)(?: bytes?)?)");
    static const std::regex race_summary(R"((Error|Warning): Race reported between (\w+) access at (.*))");
    static const std::regex hazard(R"((?:ERROR|Error|WARNING|Warning): Potential (RAW|WAR|WAW) hazard detected at (__\w+__) \S+ in block \((\d+, ?\d+, ?\d+)\).*)");
    static const std::regex barrier(R"(Barrier error detected\.? ?(.*))");
    static const std::string hazard_words[][2] = {
        {"RAW", "read-after-write"}, {"WAR", "write-after-read"}, {"WAW", "write-after-write"}};
    sanitizer_finding f;
    f.tool = tool;
    std::smatch m;
    if (std::regex_match(header, m, invalid_access)) {
        // The kind ("out-of-bounds", "misaligned") comes with the address line.
        std::string qualifier = m[1].str();
        if (!qualifier.empty()) qualifier.pop_back();
        const std::string op = m[2].str() == "atomic" ? "atomic access" : m[2].str();
        f.kind = fmt::format("{} of {} bytes{}", op, m[3].str(), memory_space(qualifier));
        return f;
    }
    if (std::regex_match(header, m, uninitialised)) {
        f.kind = fmt::format("read of uninitialised global memory ({} bytes never written)", m[2].str());
        return f;
    }
    if (std::regex_match(header, m, race_summary)) {
        // "race on shared memory in k; a write at a.cu:13 and a read at
        // a.cu:15 with no barrier between them" once the second line is read.
        const code_location first = read_location(m[3].str());
        f.kind = race_between;
        f.other_access = fmt::format("a {} at {}", m[2].str() == "Write" ? "write" : "read",
                                     first.location.empty() ? "?" : first.location);
        f.kernel = first.kernel;
        return f;
    }
    if (std::regex_match(header, m, hazard)) {
        std::string words = m[1].str();
        for (const auto& [code, plain] : hazard_words)
            if (code == m[1].str()) words = plain;
        f.kind = fmt::format("race on shared memory ({} hazard: {} with no barrier between)", m[1].str(), words);
        std::string block = m[3].str();
        block.erase(std::remove(block.begin(), block.end(), ' '), block.end());
        f.block = "(" + block + ")";
        return f;
    }
    if (std::regex_match(header, m, barrier)) {
        std::string detail = m[1].str();
        if (!detail.empty() && detail.back() == '.') detail.pop_back();
        if (!detail.empty()) detail[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(detail[0])));
        f.kind = detail.empty() ? "barrier error: __syncthreads() not reached by every thread"
                                : fmt::format("barrier error: {}: __syncthreads() not reached by every thread",
                                              detail);
        return f;
    }
    // Other errors the tool names (hardware exceptions and the like) are kept in
    // its words, once a location shows that they are about a kernel.
    if (header.find("Misaligned") != std::string::npos || header.find("Out-of-range") != std::string::npos ||
        header.find("Illegal") != std::string::npos || header.find("Invalid") != std::string::npos) {
        f.kind = header;
        return f;
    }
    return std::nullopt;
}

// A detail line of an open finding: where, which thread, which address.
void add_detail(sanitizer_finding& f, const std::string& text) {
    static const std::regex thread_block(R"(by thread \((\d+,\d+,\d+)\) in block \((\d+,\d+,\d+)\))");
    static const std::regex hazard_thread(R"((Write|Read) Thread \((\d+, ?\d+, ?\d+)\) at (.*))");
    static const std::regex race_second(R"(and (\w+) access at (.*))");
    static const std::regex address_is(R"((?:Address|Access to) 0x([0-9a-fA-F]+) is (out of bounds|misaligned).*)");
    static const std::regex nearest(R"(and is (.*?)(?: at 0x[0-9a-fA-F]+)?( of size .*))");
    std::smatch m;
    if (text.rfind("at ", 0) == 0 && f.kernel.empty()) {
        const code_location where = read_location(text.substr(3));
        f.kernel = where.kernel;
        f.location = where.location;
    } else if (std::regex_match(text, m, thread_block)) {
        f.thread = "(" + m[1].str() + ")";
        f.block = "(" + m[2].str() + ")";
    } else if (std::regex_match(text, m, hazard_thread)) {
        std::string thread = m[2].str();
        thread.erase(std::remove(thread.begin(), thread.end(), ' '), thread.end());
        const code_location where = read_location(m[3].str());
        if (f.thread.empty()) {
            // The first access named (the write, for RAW) is the finding's thread and line.
            f.thread = "(" + thread + ")";
            f.kernel = where.kernel;
            f.location = where.location;
        } else if (f.other_access.empty()) {
            f.other_access = fmt::format("{} by thread ({}) at {}", m[1].str() == "Write" ? "written" : "read", thread,
                                         where.location.empty() ? where.kernel : where.location);
        }
    } else if (std::regex_match(text, m, race_second) && f.kind == race_between &&
               f.other_access.find(" and ") == std::string::npos) {
        const code_location second = read_location(m[2].str());
        f.other_access += fmt::format(" and a {} at {} with no barrier between them",
                                      m[1].str() == "Write" ? "write" : "read",
                                      second.location.empty() ? "?" : second.location);
    } else if (std::regex_match(text, m, address_is)) {
        f.kind = (m[2].str() == "misaligned" ? "misaligned " : "out-of-bounds ") + f.kind;
        if (m[1].length() <= 16) f.address_value = std::stoull(m[1].str(), nullptr, 16);
    } else if (std::regex_match(text, m, nearest)) {
        f.address = m[1].str() + m[2].str();
    }
}

// The line compute-sanitizer ends with when the program it ran did not end
// normally (a signal, an abort): it starts with "Error" as the tool's own
// failures do, but says nothing of the tool's working here. (On an H200,
// lesson01's mutant host_crash ended its rerun so.)
bool says_how_the_program_ended(const std::string& text) {
    return text.rfind("Error: process didn't terminate successfully", 0) == 0;
}

}  // namespace

sanitizer_report parse_sanitizer_report(sanitizer_tool tool, const std::string& text) {
    sanitizer_report report;
    // "ERROR SUMMARY: 96 errors", then perhaps "ERROR SUMMARY: 93 errors were not
    // printed..."; racecheck's hazard report counts in "RACECHECK SUMMARY: 3
    // hazards displayed (4096 errors, 0 warnings)" instead.
    static const std::regex summary(R"(ERROR SUMMARY: (\d+) errors?)");
    static const std::regex race_summary(R"(RACECHECK SUMMARY: .*\((\d+) errors?, .*)");
    bool counted = false;
    std::optional<sanitizer_finding> open;
    auto close = [&] {
        // Only errors about a kernel are findings: the others say nothing of the student's code.
        if (open && !open->kernel.empty()) report.findings.push_back(std::move(*open));
        open.reset();
    };
    std::istringstream lines(text);
    for (std::string raw; std::getline(lines, raw);) {
        const std::optional<report_line> line = read_line(raw);
        if (!line || line->text.empty()) continue;
        std::smatch m;
        if (line->indent > 0) {
            if (open) add_detail(*open, line->text);
            continue;
        }
        close();
        if (std::regex_match(line->text, m, summary) || std::regex_match(line->text, m, race_summary)) {
            if (!counted) report.error_count = std::stoi(m[1].str());
            counted = true;
        } else if (line->text.rfind("ERROR SUMMARY:", 0) == 0 || line->text.rfind("RACECHECK SUMMARY:", 0) == 0) {
            // "93 errors were not printed": already counted.
        } else if (auto finding = open_finding(tool, line->text)) {
            open = std::move(finding);
        } else if (line->text.rfind("Internal Sanitizer Error", 0) == 0) {
            report.internal_errors.push_back(line->text);
        } else if (says_how_the_program_ended(line->text)) {
            report.program_ended.push_back(line->text);
        } else if (line->text.rfind("Error", 0) == 0 || line->text.rfind("ERROR", 0) == 0) {
            report.tool_errors.push_back(line->text);
        }
    }
    close();
    return report;
}

std::string describe(const sanitizer_finding& f) {
    std::string text = fmt::format("compute-sanitizer ({}): {} in {}", to_string(f.tool), f.kind, f.kernel);
    if (!f.location.empty()) text += " at " + f.location;
    if (!f.thread.empty()) text += ", thread " + f.thread;
    if (!f.block.empty()) text += (f.thread.empty() ? ", block " : " block ") + f.block;
    if (!f.other_access.empty()) text += "; " + f.other_access;
    if (!f.address.empty()) text += "; the address is " + f.address;
    return text;
}

}  // namespace grader
