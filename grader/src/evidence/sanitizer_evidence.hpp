#pragma once
// Evidence for a failure's explanation: after a graded run, each GPU
// correctness test that failed or crashed is run again alone, in a process of
// its own, under compute-sanitizer (sanitizer.hpp), and what the tool found
// leads the test's messages. With `grader run --sanitize`, every GPU
// correctness test is checked, the passing ones too.
//
// Which tools: memcheck first; then racecheck, synccheck and initcheck, each
// only while the tools before it found nothing. racecheck and synccheck are
// not run at all where the test program's machine code shows they have
// nothing to look at (no instruction that may touch shared memory, no
// barrier or warp-synchronous one: kernel_instructions.hpp). That is read
// beside the first memcheck rerun; the first time racecheck or synccheck
// would run, it is waited for up to half a second (on an H100 machine
// lesson01's listing took 1.2 s, its first memcheck rerun 0.9 s), and after
// that only taken once ready: lesson07's takes 3.4 s and would spare
// nothing (its kernels use shared memory). Where it cannot be read
// (kernels compiled at run time, no cuobjdump) they run as before.
//
// Which failing tests: the quickest first, and the tools' answers in some
// stand for the rest (sanitizer_rerun_plan.hpp): a tool that found nothing
// in two is not run again, and once a tool has found an error the other
// failing tests of the same suite are not rerun.
//
// A finding never changes a verdict (the judge decides those, from the
// evidence file): it comes from the student's program, run with the student's
// code, and only explains. Where the tools find nothing, nothing is added.
// Timed-out tests are not rerun: under the tool a hang would only hang longer.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "evidence/kernel_instructions.hpp"
#include "report/report.hpp"

namespace grader {

struct sanitizer_options {
    bool every_test = false;  // --sanitize: passing tests too
    // All the reruns of one graded run together; what is left unchecked when
    // it is spent is named in a note.
    std::chrono::milliseconds budget{60'000};
    // One rerun's limit: the tools slow kernels 10 to 100 times.
    std::chrono::milliseconds per_rerun_limit{240'000};
    // What the test program's kernels can do (kernel_instructions_of),
    // which should end soon after its argument is set (no longer wanted);
    // unset, or nullopt from it: unknown, and every tool may run. Not
    // asked with every_test: --sanitize runs every tool it is asked for.
    std::function<std::optional<kernel_instructions>(const std::atomic<bool>& give_up)> read_kernels;
    // How long the first racecheck or synccheck waits for that answer.
    std::chrono::milliseconds wait_for_kernels{500};
    // The kernels compiled into the test program and the student's library
    // (mangled names), which racecheck and synccheck then check alone: the
    // kernels of a library the program calls (cuBLAS's in lesson07) run
    // unchecked at full speed, as a race or a barrier in them is not the
    // student's. Empty where they cannot be told (a library that compiles
    // or loads kernels at run time, no cuobjdump): every kernel is checked.
    // Not asked with every_test.
    std::function<std::vector<std::string>()> own_kernels;
    // Where set, the time the reruns so far spent not running: waiting for
    // the GPU, or stopped for a timed test and done again (a batch's reruns
    // yield to timed tests, gpu_gate.hpp). The budget does not count it.
    const std::chrono::steady_clock::duration* not_running = nullptr;
};

// The budget for failing tests (a normal run: it delays every report with a
// failure, the student's and a batch's, so it stays small) and for --sanitize.
inline constexpr std::chrono::seconds failure_rerun_budget{30};
inline constexpr std::chrono::seconds sanitize_all_budget{600};
// A rerun's limit, in graded-test time limits.
inline constexpr int sanitizer_limit_factor = 4;

// Runs test `id` of the student's program alone under `tool_command` (which
// ends where the program's own arguments begin, and writes the tool's report
// to `report_file`), stopped after `limit`; returns whether the tool ended by
// itself (else its report is cut short: what it found is real, but not
// finding anything shows nothing).
using run_under_sanitizer_fn =
    std::function<bool(const std::string& id, const std::vector<std::string>& tool_command,
                       const std::filesystem::path& report_file, std::chrono::milliseconds limit)>;

// Where a rerun of test `id` asks its guard-paged inputs to say where they
// lie (input_map.hpp), so that an address in a guard is told as an element.
std::filesystem::path input_map_file(const std::filesystem::path& report_dir, const std::string& id);

// The tests that get a rerun, in report order.
std::vector<std::string> tests_to_sanitize(const std::vector<graded_test>& tests, bool every_test);

// Reruns the tests that need it (writing reports into `report_dir`) and adds
// what the tool found to their messages. Returns the run's notes: the tool
// missing, budget spent, or the tool unable to work here, each said once.
std::vector<std::string> add_sanitizer_evidence(std::vector<graded_test>& tests, const sanitizer_options& options,
                                                const std::filesystem::path& report_dir,
                                                const run_under_sanitizer_fn& run_under);

}  // namespace grader
