#include "batch/memory_size.hpp"

#include <fmt/format.h>

#include <exception>

#include "system/user_error.hpp"

namespace grader {

long long parse_memory(const std::string& text) {
    std::size_t used = 0;
    double number = 0;
    try {
        number = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string unit = text.substr(used);
    const double scale = unit == "" || unit == "G" ? 1024.0 * 1024 * 1024
                         : unit == "M"             ? 1024.0 * 1024
                         : unit == "T"             ? 1024.0 * 1024 * 1024 * 1024
                                                   : 0;
    if (used == 0 || scale == 0 || number <= 0)
        throw user_error(usage_error, fmt::format("--memory {}: write a size such as 16G or 4096M", text));
    return static_cast<long long>(number * scale);
}

}  // namespace grader
