#include "evidence/input_map.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

namespace grader {

namespace {

// The map is the student's program's output: at most this much is read.
constexpr std::size_t most_inputs = 64;
constexpr std::size_t longest_name = 32;

bool plain_name(const std::string& name) {
    if (name.empty() || name.size() > longest_name) return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

std::optional<guarded_input> read_entry(const std::string& line) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    try {
        guarded_input in;
        in.name = j.at("name").get<std::string>();
        in.first = j.at("first").get<std::uintptr_t>();
        in.element_bytes = j.at("element_bytes").get<std::size_t>();
        in.rows = j.at("rows").get<std::size_t>();
        in.cols = j.at("cols").get<std::size_t>();
        in.pitch = j.at("pitch").get<std::size_t>();
        in.matrix = j.at("matrix").get<bool>();
        const auto& guard = j.at("guard");
        in.guard_begin = guard.at(0).get<std::uintptr_t>();
        in.guard_end = guard.at(1).get<std::uintptr_t>();
        const bool sane = plain_name(in.name) && in.element_bytes > 0 && in.element_bytes <= 64 && in.rows > 0 &&
                          in.cols > 0 && in.pitch >= in.cols && in.guard_begin < in.guard_end &&
                          in.rows <= (std::size_t{1} << 40) / in.pitch;
        return sane ? std::optional(in) : std::nullopt;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::string bytes_text(std::uintptr_t n) { return n == 1 ? "1 byte" : fmt::format("{} bytes", n); }

// "a[256]" or "A[64][3]" for the element `offset` bytes from element 0
// (negative: before it), and what the input holds.
std::string element(const guarded_input& in, long long offset) {
    const auto size = static_cast<long long>(in.element_bytes);
    // Rounded towards minus infinity, so that the bytes just before element 0 are element -1.
    const long long index = offset >= 0 ? offset / size : -((-offset + size - 1) / size);
    if (!in.matrix) return fmt::format("{}[{}]", in.name, index);
    const auto pitch = static_cast<long long>(in.pitch);
    const long long row = index >= 0 ? index / pitch : -((-index + pitch - 1) / pitch);
    return fmt::format("{}[{}][{}]", in.name, row, index - row * pitch);
}

std::string extent(const guarded_input& in) {
    std::string text;
    if (!in.matrix) {
        text = in.cols == 1 ? fmt::format("1 element: {}[0]", in.name)
                            : fmt::format("{} elements: {}[0] to {}[{}]", in.cols, in.name, in.name, in.cols - 1);
    } else {
        text = in.rows * in.cols == 1 ? fmt::format("1 x 1: {}[0][0]", in.name)
                                      : fmt::format("{} x {}: {}[0][0] to {}[{}][{}]", in.rows, in.cols, in.name,
                                                    in.name, in.rows - 1, in.cols - 1);
        if (in.pitch != in.cols) text += fmt::format(", rows {} elements apart", in.pitch);
    }
    return text;
}

}  // namespace

std::vector<guarded_input> read_input_map(const std::filesystem::path& file) {
    // Only the start of the file is read: 4 lines of at most 1 KiB for each
    // input taken, whatever the program under test wrote.
    constexpr std::size_t longest_line = 1024;
    std::string head(4 * most_inputs * (longest_line + 1), '\0');
    std::ifstream in{file, std::ios::binary};
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    std::vector<guarded_input> inputs;
    std::istringstream lines(head);
    for (std::string line; inputs.size() < most_inputs && std::getline(lines, line);) {
        if (line.size() > longest_line) continue;
        if (auto entry = read_entry(line)) inputs.push_back(std::move(*entry));
    }
    return inputs;
}

std::optional<std::string> name_guarded_address(std::uintptr_t address, const std::vector<guarded_input>& inputs) {
    // The last input that claims the address: a guard is the test program's
    // while the input lives, and a later input may reuse freed addresses.
    for (auto it = inputs.rbegin(); it != inputs.rend(); ++it) {
        const guarded_input& in = *it;
        if (address < in.guard_begin || address >= in.guard_end) continue;
        const std::uintptr_t end = in.first + ((in.rows - 1) * in.pitch + in.cols) * in.element_bytes;
        if (in.guard_end <= in.first) {  // the guard comes before the input
            const std::uintptr_t gap = in.first - in.guard_end;
            return fmt::format("{}, before the start of input {} ({}); unmapped memory ends {} {}'s start",
                               element(in, -static_cast<long long>(in.first - address)), in.name, extent(in),
                               gap == 0 ? "right at" : bytes_text(gap) + " before", in.name);
        }
        if (in.guard_begin < end) return std::nullopt;  // not a map this grader wrote
        const std::uintptr_t gap = in.guard_begin - end;
        const std::string past = in.matrix ? "below the last row of" : "past the end of";
        return fmt::format("{}, {} input {} ({}); unmapped memory starts {} {}'s end",
                           element(in, static_cast<long long>(address - in.first)), past, in.name, extent(in),
                           gap == 0 ? "right after" : bytes_text(gap) + " after", in.name);
    }
    return std::nullopt;
}

}  // namespace grader
