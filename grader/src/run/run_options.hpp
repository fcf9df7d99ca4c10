#pragma once
// How one graded run of a lesson's test program is set up (runner.hpp runs
// it), where it keeps its files, and the limits on what the program may send.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "course/testing/evidence.hpp"
#include "run/gpu_gate.hpp"
#include "run/work_places.hpp"
#include "run/sandbox.hpp"
#include "system/step_timings.hpp"

namespace grader {

// Limits tighter than the run's per-test limit for some tests, and where
// they come from (`grader batch`: from the reference solution's time for
// each test, measured by `grader verify` on this GPU model). A hang then
// holds the GPU for about as long as a correct test may take under load
// rather than the whole limit, while a correct but slower kernel keeps many
// times the solution's time.
struct test_time_limits {
    std::map<std::string, std::chrono::milliseconds> by_test;
    // More for the first GPU test of each process, which starts CUDA (creates
    // the process's context): alone that takes a fraction of a second, but
    // the driver creates one context at a time, and in a batch many processes
    // start at once. Its own limit may then come to more than the run's,
    // which still caps it.
    std::chrono::milliseconds first_gpu_test_extra{0};
    // The GPU tests (listed_test::gpu): the first of them in a process starts CUDA.
    std::set<std::string> gpu_tests;
    // "5 s plus 20 times the reference solution's time for it (...)": set
    // where measured times apply, even when none is tighter than the run's.
    std::string why;
};

struct run_options {
    std::filesystem::path tests_program;  // links the code under test: untrusted
    // The same tests against the reference solution; in the student edition,
    // which has none, tests_program itself (run/grade.cpp), sandboxed like it.
    std::filesystem::path judge_program;
    // Whether judge_program is the student's own program (a practice grade
    // in the student edition) rather than the course's solution: its exit
    // is then waited for, like anything else of the student's.
    bool judge_is_the_students_program = false;
    std::filesystem::path log_dir;        // each process's output, and the evidence
    std::filesystem::path implementation_library;  // the student's compiled code, for checks that read it
    unsigned long long seed = 0;
    std::chrono::milliseconds per_test_limit{60'000};
    // Tighter limits for some tests, from the start of each: none is longer
    // than per_test_limit, which is every other test's, and the start-up's.
    test_time_limits test_limits;
    // The judge's limit on one of its tests: it may wait a whole test of the
    // student's program before judging it, so two limits and this much more.
    std::chrono::milliseconds judge_extra_time{30'000};
    std::vector<std::string> only;        // test ids to run; empty: all
    // Where set, the tests program (never the judge) runs inside this
    // bubblewrap sandbox; the program and the evidence folder are shown in it.
    std::optional<std::filesystem::path> bwrap;
    sandbox_spec sandbox;
    // The grader's GPU recorder (grader/recorder): the student's program loads
    // it for its timed tests, and the judge takes their time from its record
    // (course/testing/timed_calls.hpp). Empty: none was built, and the judge
    // says the speed cannot be graded.
    std::filesystem::path gpu_recorder;
    // course-threads-only (grader/threads_only): the student's program runs
    // under it, where it may start threads but not processes
    // (process_refusals.hpp). Empty: none was built (no libseccomp), and
    // nothing is refused.
    std::filesystem::path threads_only_launcher;
    // Where set (`grader batch`), other runs share the GPU: this run's
    // correctness tests share it, and its timed tests wait until it is
    // theirs alone (gpu_gate.hpp).
    gpu_gate* gate = nullptr;
    // Where set (`grader batch`), the run holds one of its GPU's places to
    // work, and lends it while it waits for the GPU alone (work_places.hpp).
    work_places* places = nullptr;
    // Set by the runner for its own processes: the run's turn at the gate,
    // which each process it starts is registered with (so that a timed run
    // may pause it) and whose paused time extends the tests' time limits.
    gpu_turn* turn = nullptr;
    // The GPU the run is graded on, as its PCI bus id ("00000000:19:00.0"):
    // a test stopped at its time limit is explained from how busy it was
    // (time_limit.hpp). Empty without a GPU.
    std::string gpu_pci_bus_id;
    // Added to the environment of every process of the run, the judge's
    // too (CUDA_VISIBLE_DEVICES: which GPU the run is graded on).
    std::vector<std::pair<std::string, std::string>> env;
    // Limits on the test program's processes (process.hpp); 0: none.
    long long max_data_bytes = 0;
    long long max_processes = 0;
    // Evidence from compute-sanitizer (sanitizer_evidence.hpp): failed GPU
    // correctness tests are rerun under it; with sanitize_every_test
    // (`grader run --sanitize`) every GPU correctness test is.
    bool sanitize_failures = true;
    bool sanitize_every_test = false;
    // Evidence from Nsight Compute (profile_evidence.hpp): failed tests of
    // the kernels' speed are profiled; with profile_every_test (`grader run
    // --profile`) every performance test is, and gets its table of kernels.
    bool profile_failures = true;
    bool profile_every_test = false;
    // `grader run --timings`: each process's start-up and tests are added here.
    step_timings* timings = nullptr;
};

// Where a run keeps its files, all under log_dir: the student's evidence
// (written in the sandbox), the grader's claims (never shown to it), the
// profiles of timed tests, and the explanations' own reruns.
inline std::filesystem::path evidence_dir(const run_options& o) { return o.log_dir / "evidence"; }
inline std::filesystem::path claims_dir(const run_options& o) { return o.log_dir / "claims"; }
// `nm -A -P` of the student's library, which the runner writes for the test
// programs (course::testing::implementation_symbols_variable).
inline std::filesystem::path implementation_symbols_file(const run_options& o) {
    return claims_dir(o) / "implementation_symbols.txt";
}
// The device code of the student's library (evidence/device_code.hpp), for
// the judge's replay of timed calls (course::testing::student_device_code_variable).
inline std::filesystem::path device_code_dir(const run_options& o) { return claims_dir(o) / "device_code"; }
// The student's program's claim of a test's result, which the judge waits for.
inline std::filesystem::path claim_word(const run_options& o, const std::string& test_file_name) {
    return claims_dir(o) / (test_file_name + course::testing::claim_suffix);
}
// The word that lets a timed test start, once the GPU is the run's alone.
inline std::filesystem::path gpu_alone_word(const run_options& o, const std::string& test_file_name) {
    return claims_dir(o) / (test_file_name + course::testing::gpu_alone_suffix);
}
// The grader's word to the judge that the GPU is its alone for a speed test
// the judge times (course/testing/evidence.hpp, wait_for_judge_alone).
inline std::filesystem::path judge_alone_word(const run_options& o, const std::string& test_file_name) {
    return claims_dir(o) / (test_file_name + course::testing::judge_alone_suffix);
}
inline std::filesystem::path profile_dir(const run_options& o) { return o.log_dir / "profile"; }
// The compute-sanitizer reruns' own logs, evidence and reports.
inline std::filesystem::path sanitizer_dir(const run_options& o) { return o.log_dir / "sanitizer"; }
// Nsight Compute's profiles of slow tests (evidence/profile_evidence.hpp): the same.
inline std::filesystem::path metrics_dir(const run_options& o) { return o.log_dir / "metrics"; }

// Limits on what a test program may send: longer event lines are dropped,
// and only this many messages of this many bytes are kept per test.
inline constexpr std::size_t max_event_line_bytes = 64 * 1024;
inline constexpr std::size_t max_messages_per_test = 20;
inline constexpr std::size_t max_message_bytes = 4096;
inline constexpr std::size_t max_figure_bytes = 300;  // a speed test's figure: one line
// Every file a test program writes (its evidence) is capped here.
inline constexpr long long max_file_bytes = 1LL << 30;
// Its output is not a file: the log keeps the first and the last this many
// bytes of it and notes what was left out (system/capped_output.hpp), so a
// program is graded as it would be without its prints.
inline constexpr std::size_t kept_output_bytes = 64 * 1024;
// A line of output quoted in a report ("last output:") is cut to this.
inline constexpr std::size_t max_quoted_line_bytes = 300;

}  // namespace grader
