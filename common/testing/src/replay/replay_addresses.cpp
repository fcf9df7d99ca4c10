#include "course/testing/replay_addresses.hpp"

#include <cstring>

namespace course::testing {

bool replay_addresses::match(std::string& why) const {
    if (student_.size() != judge_.size()) {
        why = "the recorded arrays are " + std::to_string(student_.size()) + ", the test's " +
              std::to_string(judge_.size());
        return false;
    }
    for (std::size_t i = 0; i < student_.size(); ++i)
        if (student_[i].bytes != judge_[i].bytes) {
            why = "array " + std::to_string(i + 1) + " was recorded as " + std::to_string(student_[i].bytes) +
                  " bytes, the test's is " + std::to_string(judge_[i].bytes);
            return false;
        }
    return true;
}

std::optional<std::uint64_t> replay_addresses::translate(const recorded_address& a, const scratch_for& scratch) const {
    // The test's arrays first; an address just past one's end (an end
    // pointer) is that array's only where no array starts there.
    for (const bool end_too : {false, true})
        for (std::size_t i = 0; i < student_.size(); ++i) {
            const std::uint64_t offset = a.value - student_[i].address;
            if (a.value >= student_[i].address && (offset < student_[i].bytes || (end_too && offset == student_[i].bytes)))
                return judge_[i].address + offset;
        }
    if (!a.in_device_memory()) return std::nullopt;
    return scratch(a.base, a.size) + (a.value - a.base);
}

std::optional<std::uint64_t> replay_addresses::translate_range(const recorded_address& a, std::uint64_t bytes,
                                                               const scratch_for& scratch) const {
    for (std::size_t i = 0; i < student_.size(); ++i) {
        const std::uint64_t offset = a.value - student_[i].address;
        if (a.value >= student_[i].address && offset < student_[i].bytes)
            return bytes <= student_[i].bytes - offset ? std::optional(judge_[i].address + offset) : std::nullopt;
    }
    if (!a.in_device_memory() || bytes > a.size - (a.value - a.base)) return std::nullopt;
    return scratch(a.base, a.size) + (a.value - a.base);
}

std::vector<std::uint8_t> translated_arguments(const recorded_op& launch, const replay_addresses& addresses,
                                               const scratch_for& scratch) {
    std::vector<std::uint8_t> args = launch.args;
    for (const auto& [at, where] : launch.pointers) {
        if (at + 8 > args.size()) continue;  // the parser refuses these; never written out of bounds
        const auto moved = addresses.translate(where, scratch);
        if (!moved) continue;
        const std::uint64_t value = *moved;
        std::memcpy(args.data() + at, &value, 8);
    }
    return args;
}

}  // namespace course::testing
