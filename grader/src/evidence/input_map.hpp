#pragma once
// Naming the element a sanitizer's address points at.
//
// The graded tests place their inputs on guard-paged memory
// (common/testing/.../guard_paged.hpp): an input ends where mapped memory
// ends, or starts where it starts, so a read past it faults. In a
// compute-sanitizer rerun the test program also writes each named input's
// place into the input map (COURSE_INPUT_MAP, one JSON line per input). An
// address memcheck reports inside an input's guard is then told as the
// element it would be: "a[256], past the end of input a (129 elements: a[0]
// to a[128])".
//
// The map comes from the student's process: it is read with limits, and it
// only ever words an explanation, never a verdict.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

struct guarded_input {
    std::string name;
    std::uintptr_t first = 0;  // the address of element 0
    std::size_t element_bytes = 0;
    std::size_t rows = 1, cols = 0, pitch = 0;  // a vector: 1 row of cols
    bool matrix = false;
    std::uintptr_t guard_begin = 0, guard_end = 0;  // the unmapped addresses [begin, end)
};

// The inputs in the map at `file`; lines that are malformed or out of
// bounds are skipped. No file, no inputs.
std::vector<guarded_input> read_input_map(const std::filesystem::path& file);

// Where `address` lies, in words, when it is in an input's guard:
// "a[256], past the end of input a (129 elements: a[0] to a[128]); unmapped
// memory starts 12 bytes after a's end". Nothing for any other address.
std::optional<std::string> name_guarded_address(std::uintptr_t address, const std::vector<guarded_input>& inputs);

}  // namespace grader
