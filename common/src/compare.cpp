#include "course/compare.hpp"

#include <fmt/format.h>

namespace course {

std::string with_commas(std::size_t value) {
    std::string digits = std::to_string(value);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
    return digits;
}

std::string comparison::summary() const {
    if (ok()) return fmt::format("all {} right", with_commas(count));
    return fmt::format("{} of {} right; first wrong at {}", with_commas(count - wrong),
                       with_commas(count), with_commas(first_wrong));
}

}  // namespace course
