#pragma once
// Evidence: what a graded test saw of the code under test.
//
// A test program that links a student's code cannot be believed when it
// says "passed": the student's code shares its process and can write
// anything anywhere, before main() too. So the grader never takes that
// program's word for a pass. Every value a graded test checks that came from
// the code under test passes through observe():
//
//   const std::vector<float> got = observe("c", output.to_host());
//
// - In the student's program (recording), observe() returns the value and
//   appends it to this test's evidence file.
// - The grader then runs the same tests built against the reference solution
//   (no student code: the judge). There observe() returns the value the
//   student's code produced, read back from the evidence, instead of the
//   reference's own, so the judge's checks run on the student's results and
//   the judge's verdict is the verdict.
// - Anywhere else (ctest, a test program run by hand) observe() returns its
//   argument and records nothing.
//
// Recorded values are untrusted data: the judge parses them with limits and
// treats anything malformed as no evidence. A test that the judge sees use
// no evidence at all fails there, so every graded test must observe what it
// checks. grader/TRUST.md has the threat model.
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace course::testing {

enum class evidence_mode { off, record, judge };
evidence_mode current_evidence_mode();

// The byte-level form of observe(): returns `bytes` (off, record) or the
// recorded bytes of the next observation (judge). `element_size` lets the
// judge refuse a recorded value whose size no value of the type could have.
std::string observe_bytes(std::string_view what, std::string bytes, std::size_t element_size,
                          bool exactly_one);

template <class T>
T observe(std::string_view what, T value) {
    static_assert(std::is_trivially_copyable_v<T>, "observe() records plain values: numbers, enums, flags");
    std::string bytes(reinterpret_cast<const char*>(&value), sizeof(T));
    bytes = observe_bytes(what, std::move(bytes), sizeof(T), true);
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

template <class T>
std::vector<T> observe(std::string_view what, std::vector<T> values) {
    static_assert(std::is_trivially_copyable_v<T>, "observe() records vectors of plain values");
    std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    bytes = observe_bytes(what, std::move(bytes), sizeof(T), false);
    values.resize(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

inline std::string observe(std::string_view what, std::string text) {
    return observe_bytes(what, std::move(text), 1, false);
}

// For the harness (harness.cpp): where evidence goes, and each test's file.
void start_evidence(evidence_mode mode, const std::string& dir);
void begin_test_evidence(const std::string& test_id);
// Ends the test's evidence. In the judge, returns what makes the evidence
// unusable ("no evidence was recorded", "2 observations were not used"),
// empty when every recorded observation was used.
std::string end_test_evidence();

// Names of the environment variables through which the grader asks for
// evidence: COURSE_EVIDENCE=record|judge and COURSE_EVIDENCE_DIR=<folder>.
inline constexpr const char* evidence_mode_variable = "COURSE_EVIDENCE";
inline constexpr const char* evidence_dir_variable = "COURSE_EVIDENCE_DIR";

// The file that holds a test's evidence, inside the evidence folder.
std::string evidence_file_name(const std::string& test_id);

}  // namespace course::testing
