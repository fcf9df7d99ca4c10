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
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace course::testing {

enum class evidence_mode { off, record, judge };
evidence_mode current_evidence_mode();

// Whether this process is the judge: a value it would read back from the GPU
// only to have observe() replace it need not be read at all.
inline bool judging() { return current_evidence_mode() == evidence_mode::judge; }

// The byte-level form of observe(): returns `bytes` (off, record) or the
// recorded bytes of the next observation (judge). `element_size` lets the
// judge refuse a recorded value whose size no value of the type could have.
std::string observe_bytes(std::string_view what, std::string bytes, std::size_t element_size,
                          bool exactly_one);

// The judge only: the next recorded value, which must be `what` and a size a
// value of `element_size` could have; nullopt where there is none to use (a
// failure is reported, or the test is not judged).
std::optional<std::string> recorded_value(std::string_view what, std::size_t element_size, bool exactly_one);

// Recording only: appends `bytes` to this test's evidence without a copy
// (a 2^24-element output is 64 MiB). Elsewhere it does nothing.
void record_bytes(std::string_view what, std::string_view bytes);

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
    const std::string_view seen(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    if (!judging()) {
        record_bytes(what, seen);
        return values;
    }
    // The judge: the recorded value, where there is one to use; else the
    // test goes on with its own (a failure is already reported).
    const std::optional<std::string> bytes = recorded_value(what, sizeof(T), false);
    if (!bytes) return values;
    values.resize(bytes->size() / sizeof(T));
    if (!bytes->empty()) std::memcpy(values.data(), bytes->data(), bytes->size());
    return values;
}

// A figure measured of the code under test (its speed, say): measured and
// recorded in the student's program; in the judge, the recorded figure is
// used and `measure` is not run at all (timing the reference would be wasted).
template <class T, class Measure>
T observe_measured(std::string_view what, Measure&& measure) {
    if (judging()) return observe(what, T{});
    return observe(what, static_cast<T>(measure()));
}

// In the student's program (recording), for a check the judge decides anyway
// (a speed compared with a baseline the judge measures itself): marks the
// test's verdict as left to the judge and returns true, so the test can skip
// measuring the baseline. Elsewhere false: the test checks as usual.
bool verdict_left_to_judge();

void report_wrong_length(std::string_view what, std::size_t recorded, std::size_t expected);

// For a result whose length the test decides (an output buffer it read back):
// in the judge, a recorded value of another length fails the test, and the
// value is cut or padded to the expected length so the checks stay in bounds.
template <class T>
std::vector<T> observe_same_size(std::string_view what, std::vector<T> values) {
    const std::size_t expected = values.size();
    values = observe(what, std::move(values));
    if (values.size() != expected) {
        report_wrong_length(what, values.size(), expected);
        values.resize(expected);
    }
    return values;
}

inline std::string observe(std::string_view what, std::string text) {
    return observe_bytes(what, std::move(text), 1, false);
}

// For the harness (harness.cpp): where evidence goes, and each test's file.
// `claims_dir`, in the judge: where the grader writes how the student's
// program ended each test, which the judge waits for (at most `wait_ms`).
void start_evidence(evidence_mode mode, const std::string& dir, const std::string& claims_dir = {},
                    long long wait_ms = 0);
void begin_test_evidence(const std::string& test_id);
// For the graded tests' fixtures, first thing: in the judge, marks the
// test as waiting for the grader's word on it, and returns true unless the
// word is in and says the student's program did not claim a pass (nothing to
// judge). `at_once` waits for that word now, so that the judge's test runs
// only after the student's; `at_first_result` lets the judge run the test's
// own work (its inputs, the reference's answer) at the same time as the
// student's program runs the test, and waits at the first recorded result
// it needs (until the student's program first claims something other than
// a pass: from then on the judge waits first, since working ahead of a
// program that fails, a skeleton say, is work thrown away). A test that
// measures time must wait at once: two processes timing at the same time
// both measure wrong. Anywhere else: true at once.
enum class claim_wait { at_once, at_first_result };
bool judge_this_test(claim_wait when = claim_wait::at_once);
// What the judge says of a test the student's program did not claim to pass.
inline constexpr const char* nothing_to_judge = "nothing to judge: the test program did not claim a pass";
// Before the second phase of a run (harness.hpp, --course-then): in the
// student's program, waits for the grader's word ("go" once the first phase
// is judged all right, "stop" otherwise); true to go on. In the judge, or
// without claims, true at once.
bool phase2_may_start();
// The file, in the claims folder, that holds that word.
inline constexpr const char* phase2_file = "phase2";
// Before a test that needs the GPU to itself (it measures time), in the
// student's program: waits until the grader says the judge is idle (the file
// <evidence file name>.alone in the claims folder holds "go"); false where
// the grader says "stop" instead (the speed tests will not be graded: a
// correctness test failed), and the test then ends without its work.
// Elsewhere: true at once.
bool wait_for_gpu_alone();
inline constexpr const char* gpu_alone_go = "go";
inline constexpr const char* gpu_alone_stop = "stop";
inline constexpr const char* gpu_alone_suffix = ".alone";
// Before the judge's test of a speed test it times itself (a replay of the
// student's calls, graded.hpp's timed_by_judge), once it has the claim: in
// the judge, waits until the grader says the GPU is the judge's alone (the
// file <evidence file name>.judge_alone in the claims folder holds "go").
// Elsewhere: true at once.
bool wait_for_judge_alone();
inline constexpr const char* judge_alone_suffix = ".judge_alone";
// The grader's clock for host work (graders_clock.hpp). Recording, in a
// graded run: the program says a line to the grader (one JSON object; the
// harness's event line) and waits for its word
// <evidence file name><suffix> in the claims folder, looking without pause
// (a clock the grader starts as it writes the word is running). Empty where
// no grader listens (ctest, a program run by hand, a rerun under a tool
// that asks for no words) or the wait ran out.
std::string say_and_wait_for_graders_word(const std::string& line, std::string_view suffix);
// Recording, in a graded run: says a line to the grader, waiting for no word.
void say_to_grader(const std::string& line);
// Whether a grader listens: recording, with its words' folder and the event line.
bool grader_listens();
// For the harness: the event line to the grader (null where there is none).
void set_events_to_grader(std::FILE* events);
// The word files of the grader's clock: <evidence file name>.span.<round>,
// "go <calls>"; and the spans it measured, one line per round,
// "<round> <calls> <nanoseconds>", in <evidence file name>.spans.
inline constexpr const char* host_span_suffix = ".span.";
inline constexpr const char* host_spans_suffix = ".spans";
// Ends the test's evidence. In the judge, returns what makes the evidence
// unusable ("no evidence was recorded", "2 observations were not used"),
// empty when every recorded observation was used.
std::string end_test_evidence();
// In the judge: a file the grader wrote about the test in progress, in the
// claims folder (<evidence file name><suffix>); empty elsewhere.
std::string grader_file_for_this_test(std::string_view suffix);
// A file beside the test in progress's evidence, in the evidence folder
// (<evidence file name><suffix>): written by the student's program (or by the
// grader's recorder in it), read by the judge; empty where there is no evidence.
std::string evidence_file_for_this_test(std::string_view suffix);
// Whether the test in progress left its verdict to the judge (verdict_left_to_judge).
bool test_left_verdict_to_judge();

// Names of the environment variables through which the grader asks for
// evidence: COURSE_EVIDENCE=record|judge, COURSE_EVIDENCE_DIR=<folder> and,
// for the judge, COURSE_EVIDENCE_CLAIMS=<folder>, COURSE_EVIDENCE_WAIT_MS=<ms>.
inline constexpr const char* evidence_mode_variable = "COURSE_EVIDENCE";
inline constexpr const char* evidence_dir_variable = "COURSE_EVIDENCE_DIR";
inline constexpr const char* evidence_claims_variable = "COURSE_EVIDENCE_CLAIMS";
inline constexpr const char* evidence_wait_variable = "COURSE_EVIDENCE_WAIT_MS";
// Where the grader's compute-sanitizer reruns ask guard-paged inputs to say
// where they lie (guard_paged.hpp, the input map): a file path.
inline constexpr const char* input_map_variable = "COURSE_INPUT_MAP";

// The file that holds a test's evidence, inside the evidence folder (the
// grader's claims take the same name plus claim_suffix). Inline: the grader
// shares it without linking the test harness.
inline constexpr const char* claim_suffix = ".claim";
inline std::string evidence_file_name(const std::string& test_id) {
    std::string name = test_id;
    for (char& c : name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                           c == '.' || c == '_' || c == '-';
        if (!plain) c = '_';
    }
    return name + ".evidence";
}

}  // namespace course::testing
