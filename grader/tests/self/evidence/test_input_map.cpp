// Naming the element an address in an input's guard points at, from the
// input map a compute-sanitizer rerun's test program writes (input_map.hpp).
// The maps here are written as guard_paged.cpp writes them; the addresses
// are made up, laid out as guard_paged_memory lays them out (2 MiB granules).
#include <gtest/gtest.h>

#include <fstream>

#include "course/temp_dir.hpp"
#include "evidence/input_map.hpp"

namespace {

using grader::guarded_input;
using grader::name_guarded_address;

constexpr std::uintptr_t granule = std::uintptr_t{1} << 21;
constexpr std::uintptr_t base = std::uintptr_t{0x7f0000000000};

// 129 floats ending 12 bytes before their guard (516 bytes, rounded to 16).
guarded_input a_ends_on_guard() {
    guarded_input a;
    a.name = "a";
    a.element_bytes = 4;
    a.cols = a.pitch = 129;
    a.guard_begin = base + granule;
    a.guard_end = base + 2 * granule;
    a.first = a.guard_begin - 528;
    return a;
}

// 129 floats starting right where their guard ends.
guarded_input b_starts_on_guard() {
    guarded_input b;
    b.name = "b";
    b.element_bytes = 4;
    b.cols = b.pitch = 129;
    b.guard_begin = base + 4 * granule;
    b.guard_end = base + 5 * granule;
    b.first = b.guard_end;
    return b;
}

// A 64 x 60 matrix, rows 64 apart, ending on its guard.
guarded_input matrix_a() {
    guarded_input m;
    m.name = "A";
    m.element_bytes = 4;
    m.matrix = true;
    m.rows = 64;
    m.cols = 60;
    m.pitch = 64;
    m.guard_begin = base + 7 * granule;
    m.guard_end = base + 8 * granule;
    m.first = m.guard_begin - 64 * 64 * 4;
    return m;
}

TEST(InputMap, AReadPastTheEndIsNamedAsTheElementItWouldBe) {
    const auto a = a_ends_on_guard();
    EXPECT_EQ(name_guarded_address(a.first + 256 * 4, {a}),
              "a[256], past the end of input a (129 elements: a[0] to a[128]); unmapped memory starts 12 bytes "
              "after a's end");
    // The slack before the guard is mapped: a read there does not fault, and is not the guard's.
    EXPECT_EQ(name_guarded_address(a.first + 129 * 4, {a}), std::nullopt);
}

TEST(InputMap, AReadBeforeTheStartIsNamedWithANegativeIndex) {
    const auto b = b_starts_on_guard();
    EXPECT_EQ(name_guarded_address(b.first - 256 * 4, {b}),
              "b[-256], before the start of input b (129 elements: b[0] to b[128]); unmapped memory ends right at "
              "b's start");
    EXPECT_EQ(name_guarded_address(b.first - 1, {b}).value().rfind("b[-1],", 0), 0u);
    auto one = b;
    one.cols = one.pitch = 1;
    EXPECT_EQ(name_guarded_address(one.first - 8, {one}),
              "b[-2], before the start of input b (1 element: b[0]); unmapped memory ends right at b's start");
}

TEST(InputMap, AMatrixElementIsNamedByRowAndColumn) {
    const auto m = matrix_a();
    EXPECT_EQ(name_guarded_address(m.first + (64 * 64 + 3) * 4, {m}),
              "A[64][3], below the last row of input A (64 x 60: A[0][0] to A[63][59], rows 64 elements apart); "
              "unmapped memory starts 16 bytes after A's end");
}

TEST(InputMap, OnlyAnAddressInAGuardIsNamed) {
    const std::vector<guarded_input> inputs{a_ends_on_guard(), b_starts_on_guard(), matrix_a()};
    EXPECT_EQ(name_guarded_address(base + 3 * granule, inputs), std::nullopt);  // no input's guard
    EXPECT_EQ(name_guarded_address(inputs[0].first, inputs), std::nullopt);     // inside a: not a guard
    EXPECT_NE(name_guarded_address(base + 4 * granule + 8, inputs), std::nullopt);  // b's guard
}

TEST(InputMap, TheMapIsReadWithLimitsAndMalformedLinesAreSkipped) {
    course::temp_dir dir("input-map");
    const auto file = dir.path() / "t.inputs.jsonl";
    {
        std::ofstream out(file);
        out << R"({"name":"a","first":1000,"element_bytes":4,"rows":1,"cols":10,"pitch":10,"matrix":false,"guard":[1040,5000]})"
            << "\n"
            << "not json\n"
            << R"({"name":"a b","first":1000,"element_bytes":4,"rows":1,"cols":10,"pitch":10,"matrix":false,"guard":[1040,5000]})"
            << "\n"  // a name that is not an identifier
            << R"({"name":"c","first":1000,"element_bytes":4,"rows":1,"cols":10,"pitch":5,"matrix":false,"guard":[1040,5000]})"
            << "\n"  // pitch < cols
            << R"({"name":"d","first":1000,"element_bytes":4,"rows":1,"cols":10,"pitch":10,"matrix":false,"guard":[5000,1040]})"
            << "\n";  // an empty guard
        for (int i = 0; i < 100; ++i)
            out << R"({"name":"e","first":1000,"element_bytes":4,"rows":1,"cols":10,"pitch":10,"matrix":false,"guard":[1040,5000]})"
                << "\n";
    }
    const auto inputs = grader::read_input_map(file);
    ASSERT_EQ(inputs.size(), 64u);  // the first, then the cap
    EXPECT_EQ(inputs[0].name, "a");
    EXPECT_EQ(inputs[0].guard_end, 5000u);
    EXPECT_EQ(inputs[1].name, "e");
    EXPECT_TRUE(grader::read_input_map(dir.path() / "none.jsonl").empty());

    // A line of a megabyte fills the part of the file that is read: it is
    // skipped, and what follows it is never read into memory.
    const auto long_line = dir.path() / "long.inputs.jsonl";
    std::ofstream(long_line) << std::string(1 << 20, 'x') << "\n"
                             << R"({"name":"f","first":1000,"element_bytes":4,"rows":1,"cols":10,"pitch":10,"matrix":false,"guard":[1040,5000]})"
                             << "\n";
    EXPECT_TRUE(grader::read_input_map(long_line).empty()) << "only the start of the file is read";
}

}  // namespace
