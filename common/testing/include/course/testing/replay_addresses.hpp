#pragma once
// Where the judge's replay of a timed call puts each address the call used
// (timed_calls.hpp, gpu_record.hpp's recorded_op). The call ran in the
// student's process, on that process's arrays; the replay runs in the
// judge's, on the judge's own copies of them:
//
// - an address inside one of the test's arrays goes to the same offset in
//   the judge's copy of that array;
// - an address the driver placed in other device memory (scratch the call
//   allocated, or kept from an earlier call) goes into memory of the judge's
//   own of the same size, one for each of the student's allocations, which
//   the replay fills with a pattern before each call: a call that needs
//   what an earlier call left there (a cache) gets the pattern;
// - anything else (a number, a host pointer, a null) is not an address of
//   device memory and is left as it is in a kernel's arguments.
//
// No CUDA here: the host tests check the mapping on made-up records.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "course/testing/gpu_record.hpp"

namespace course::testing {

// One of a timed call's arrays, as a process placed it.
struct placed_array {
    std::uint64_t address = 0, bytes = 0;
};

// The judge's memory for the student's allocation (base, size) outside the
// test's arrays: its address (an allocation of `size` bytes made once and
// reused for the same student allocation).
using scratch_for = std::function<std::uint64_t(std::uint64_t base, std::uint64_t size)>;

class replay_addresses {
public:
    // The test's arrays in the same order: as the student's process placed
    // them (what it recorded), and as the judge placed its own.
    replay_addresses(std::vector<placed_array> student, std::vector<placed_array> judge)
        : student_(std::move(student)), judge_(std::move(judge)) {}

    // Whether the two lists describe the same arrays (as many, each as
    // large); else why not.
    bool match(std::string& why) const;

    // The judge's address for `a`, or nullopt where `a` is not in device
    // memory (left as it is in a kernel's arguments).
    std::optional<std::uint64_t> translate(const recorded_address& a, const scratch_for& scratch) const;

    // The same for the `bytes` bytes from `a` (a copy's or a memset's), only
    // where every one of them lies in one of the test's arrays, or in the
    // student's allocation that `a` lies in: nullopt where they do not (the
    // replay never writes outside the memory it maps).
    std::optional<std::uint64_t> translate_range(const recorded_address& a, std::uint64_t bytes,
                                                 const scratch_for& scratch) const;

private:
    std::vector<placed_array> student_, judge_;
};

// A launch's argument bytes with every pointer into device memory moved to
// the judge's memory.
std::vector<std::uint8_t> translated_arguments(const recorded_op& launch, const replay_addresses& addresses,
                                               const scratch_for& scratch);

}  // namespace course::testing
