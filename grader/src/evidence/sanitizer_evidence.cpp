#include "evidence/sanitizer_evidence.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <future>
#include <optional>
#include <set>
#include <utility>

#include "course/testing/evidence.hpp"
#include "evidence/input_map.hpp"
#include "evidence/sanitizer.hpp"
#include "evidence/sanitizer_rerun_plan.hpp"
#include "system/process.hpp"

namespace fs = std::filesystem;

namespace grader {

namespace {
using clock = std::chrono::steady_clock;

bool failed_on_its_own(const graded_test& t) {
    return t.status == test_status::failed || t.status == test_status::crashed;
}

// A part the student has not written yet (course::todo) is no bug to look for.
bool unfinished(const graded_test& t) {
    return std::any_of(t.messages.begin(), t.messages.end(),
                       [](const std::string& m) { return m.rfind("not implemented yet", 0) == 0; });
}

// The message that leads a test's messages: the first finding, and how many
// errors the tool counted in all.
std::string evidence_message(const sanitizer_report& report) {
    std::string text = describe(report.findings.front());
    if (report.error_count > 1) text += fmt::format(" ({} errors in all; the first is shown)", report.error_count);
    return text;
}
// racecheck and synccheck report a hazard in a kernel whether or not it
// changed this run's output: a race need not show in every test, nor every
// time. So they look first at the quickest test of the same suite (the
// tests of one function, so of its kernels) that passed, where there is one
// quicker than the failing test: on an H200, racecheck took 1.2 s over
// lesson07's Tiled.Tiny and 8.4 s (72 s of CPU) over Tiled.Medium, the
// smallest test that a missing barrier failed.
bool finds_hazards_in_any_test(sanitizer_tool tool) {
    return tool == sanitizer_tool::racecheck || tool == sanitizer_tool::synccheck;
}
const graded_test* quicker_passing_test_of_suite(const std::vector<graded_test>& tests, const graded_test& failing) {
    const std::string suite = suite_of(failing.id);
    const graded_test* quickest = nullptr;
    for (const auto& t : tests) {
        if (!t.gpu || t.performance || t.status != test_status::passed || t.ms >= failing.ms) continue;
        if (suite_of(t.id) != suite) continue;
        if (!quickest || t.ms < quickest->ms) quickest = &t;
    }
    return quickest;
}

// Where a rerun of `test` under `tool` writes its report.
fs::path report_file_of(const fs::path& report_dir, const std::string& test, sanitizer_tool tool) {
    return report_dir / fmt::format("{}.{}.txt", course::testing::evidence_file_name(test), to_string(tool));
}

// An address in an input's guard becomes the element it would be.
void name_guarded_addresses(sanitizer_report& report, const fs::path& input_map) {
    const std::vector<guarded_input> inputs = read_input_map(input_map);
    if (inputs.empty()) return;
    for (auto& f : report.findings) {
        if (!f.address_value) continue;
        if (auto named = name_guarded_address(*f.address_value, inputs)) f.address = std::move(*named);
    }
}
}  // namespace

fs::path input_map_file(const fs::path& report_dir, const std::string& id) {
    return report_dir / (course::testing::evidence_file_name(id) + ".inputs.jsonl");
}

namespace {
// A failure its test explained from what it saw, by a cause that none of
// the tools looks at (course/testing/explained.hpp): rerunning it adds
// nothing (unless every test is asked for).
bool explained_beyond_the_tools(const graded_test& t, bool every_test) {
    return t.explained_beyond_the_tools && !every_test;
}
}  // namespace

std::vector<std::string> tests_to_sanitize(const std::vector<graded_test>& tests, bool every_test) {
    std::vector<std::string> ids;
    for (const auto& t : tests) {
        // Speed tests run the same kernels as the correctness tests, on inputs
        // too large to check at the tool's pace.
        if (!t.gpu || t.performance || explained_beyond_the_tools(t, every_test)) continue;
        if ((failed_on_its_own(t) && !unfinished(t)) || (every_test && t.status == test_status::passed))
            ids.push_back(t.id);
    }
    return ids;
}

std::vector<std::string> add_sanitizer_evidence(std::vector<graded_test>& tests, const sanitizer_options& options,
                                                const fs::path& report_dir, const run_under_sanitizer_fn& run_under) {
    std::vector<std::string> notes;
    std::vector<std::string> explained;
    for (const auto& t : tests)
        if (t.gpu && !t.performance && failed_on_its_own(t) && explained_beyond_the_tools(t, options.every_test))
            explained.push_back(t.id);
    if (!explained.empty())
        notes.push_back(fmt::format("compute-sanitizer did not rerun {}: the test named the cause from what it saw, "
                                    "and it is not one the tools look for (they check memory accesses, races, "
                                    "barriers and initialisation)",
                                    fmt::join(explained, ", ")));
    std::vector<std::string> ids = tests_to_sanitize(tests, options.every_test);
    if (ids.empty()) return notes;
    const std::optional<fs::path> sanitizer = find_compute_sanitizer();
    if (!sanitizer) {
        notes.push_back(
            "compute-sanitizer was not found, so failures are explained by the tests' own checks only: install the "
            "CUDA toolkit's compute-sanitizer (it comes with the toolkit, in its bin folder) or name it in "
            "COURSE_COMPUTE_SANITIZER.");
        return notes;
    }
    std::error_code ec;
    fs::create_directories(report_dir, ec);
    auto test_named = [&](const std::string& id) -> graded_test& {
        return *std::find_if(tests.begin(), tests.end(), [&](const graded_test& g) { return g.id == id; });
    };
    // Failures: the quickest tests first (a rerun costs about the test's own
    // time, slowed by the tool), so that what the tools find, or fail to
    // find, in them spares the slow ones.
    if (!options.every_test)
        std::stable_sort(ids.begin(), ids.end(),
                         [&](const std::string& a, const std::string& b) { return test_named(a).ms < test_named(b).ms; });

    const auto give_up = clock::now() + options.budget;
    rerun_plan plan(options.every_test);
    std::vector<std::string> unchecked;
    int checked = 0;
    bool tool_failed = false;
    // Read beside the first memcheck rerun; given up on when this returns.
    std::atomic<bool> no_longer_wanted{false};
    std::future<std::optional<kernel_instructions>> reading;
    if (!options.every_test && options.read_kernels)
        reading = std::async(std::launch::async, [&] { return options.read_kernels(no_longer_wanted); });
    struct give_up_at_the_end {
        std::atomic<bool>& flag;
        ~give_up_at_the_end() { flag = true; }  // before `reading` waits for the thread
    } stop_reading{no_longer_wanted};
    bool waited_once = false;
    auto look_at_the_kernels = [&] {
        const auto wait = waited_once ? std::chrono::milliseconds(0) : options.wait_for_kernels;
        waited_once = true;
        if (reading.wait_for(wait) != std::future_status::ready) return;  // the tool runs; asked again next time
        std::optional<kernel_instructions> kernels;
        try {
            kernels = reading.get();
        } catch (const std::exception&) {
            return;  // unknown: every tool may run
        }
        if (!kernels) return;
        if (!kernels->shared_memory) plan.nothing_to_look_at(sanitizer_tool::racecheck);
        if (!kernels->synchronization) plan.nothing_to_look_at(sanitizer_tool::synccheck);
    };
    std::set<std::pair<sanitizer_tool, std::string>> looked_at;  // quicker tests rerun in a failing one's place
    // The student's kernels, asked once, before the first hazard tool runs.
    // A tool that wrote no report with them named (a compute-sanitizer that
    // does not know --kernel-name) is run again without, and so from then on.
    std::optional<std::vector<std::string>> own_kernels;
    bool filter_refused = false;
    std::set<sanitizer_tool> filtered;  // the tools that ran over those kernels alone
    auto kernels_for = [&](sanitizer_tool tool) -> std::vector<std::string> {
        if (!finds_hazards_in_any_test(tool) || options.every_test || !options.own_kernels || filter_refused)
            return {};
        if (!own_kernels) own_kernels = options.own_kernels();
        return *own_kernels;
    };
    for (const auto& id : ids) {
        graded_test& t = test_named(id);
        std::optional<sanitizer_report> found;
        std::string found_in = id;  // the test whose rerun found it
        bool budget_spent = false, rerun = false;
        std::vector<std::string> ended_under;  // the tools under which the program did not end normally
        std::string how_it_ended;              // the first such tool's words
        for (const sanitizer_tool tool : sanitizer_tools_in_order) {
            if (reading.valid() && (tool == sanitizer_tool::racecheck || tool == sanitizer_tool::synccheck))
                look_at_the_kernels();
            if (!plan.runs(tool, id)) continue;
            // What the budget leaves (the waits for timed tests not counted);
            // under 5 s, no rerun starts.
            auto time_left = [&] {
                const auto not_running = options.not_running ? *options.not_running : clock::duration{};
                return std::chrono::duration_cast<std::chrono::milliseconds>(give_up + not_running - clock::now());
            };
            if (time_left() < std::chrono::seconds(5)) {
                budget_spent = true;
                break;
            }
            rerun = true;
            // One rerun of `which` under the tool; none where it wrote no report.
            bool cut_short = false;  // the last rerun was stopped at its limit
            auto rerun_of = [&](const std::string& which) -> std::optional<sanitizer_report> {
                const fs::path report_file = report_file_of(report_dir, which, tool);
                fs::remove(report_file, ec);  // a report from another run says nothing of this one
                fs::remove(input_map_file(report_dir, which), ec);
                const std::vector<std::string> only = kernels_for(tool);
                cut_short = !run_under(which, sanitizer_command(*sanitizer, tool, report_file, only), report_file,
                                       std::min(time_left(), options.per_rerun_limit));
                auto read_report = [&]() -> std::optional<sanitizer_report> {
                    if (!fs::exists(report_file, ec)) return std::nullopt;
                    return parse_sanitizer_report(tool, file_text(report_file));
                };
                std::optional<sanitizer_report> read = read_report();
                // With kernels named, the tool may also fail inside itself
                // (CUDA 13.0's racecheck did over cuBLAS's TF32 kernels, left
                // unchecked: "The Sanitizer failed to handle a hardware
                // exception"), where it finds nothing without them.
                if (!only.empty() && (!read || !read->internal_errors.empty())) {
                    filter_refused = true;
                    cut_short = !run_under(which, sanitizer_command(*sanitizer, tool, report_file), report_file,
                                           std::min(time_left(), options.per_rerun_limit));
                    read = read_report();
                } else if (!only.empty()) {
                    filtered.insert(tool);
                }
                if (!read) {
                    // It did not start (or not as far as its report): no rerun will do better.
                    notes.push_back(fmt::format("compute-sanitizer wrote no report for {} (its log is in {}): "
                                                "failures are explained by the tests' own checks only.",
                                                which, report_dir.parent_path().string()));
                    tool_failed = true;
                    return std::nullopt;
                }
                sanitizer_report report = std::move(*read);
                if (!report.internal_errors.empty()) {
                    // Its failure, not the program's: this rerun shows nothing.
                    notes.push_back(fmt::format("compute-sanitizer ({}) failed inside itself in {} (\"{}\"), so "
                                                "that rerun checked nothing",
                                                to_string(tool), which, report.internal_errors.front()));
                    report.error_count = 0;
                }
                name_guarded_addresses(report, input_map_file(report_dir, which));
                return report;
            };
            const graded_test* quicker = finds_hazards_in_any_test(tool) && !options.every_test
                                             ? quicker_passing_test_of_suite(tests, t)
                                             : nullptr;
            // Each quicker test once per tool: where it showed nothing for
            // one failing test, it shows nothing for the next.
            if (quicker && looked_at.insert({tool, quicker->id}).second) {
                const std::string quicker_id = quicker->id;  // `tests` may change below
                const std::optional<sanitizer_report> seen = rerun_of(quicker_id);
                if (tool_failed) break;
                if (!seen->findings.empty()) {
                    found = *seen;
                    found_in = quicker_id;
                    plan.found(tool, id, evidence_message(*seen), quicker_id);
                    break;
                }
                // Nothing there: the failing test itself is rerun, as any
                // other, if the budget still allows one.
                if (time_left() < std::chrono::seconds(5)) {
                    budget_spent = true;
                    break;
                }
            }
            const std::optional<sanitizer_report> seen = rerun_of(id);
            if (tool_failed) break;
            sanitizer_report report = *seen;
            if (!report.findings.empty()) {
                found = report;
                plan.found(tool, id, evidence_message(report));
                break;
            }
            if (!report.internal_errors.empty()) continue;  // noted; it checked nothing, so it found nothing either
            if (cut_short) {
                // Stopped before the end of the test: finding nothing so far shows nothing.
                notes.push_back(fmt::format("compute-sanitizer ({}) did not finish {} within its time limit, so that "
                                            "rerun shows nothing",
                                            to_string(tool), id));
                continue;
            }
            // Errors counted but none read: an error of a kind this grader does not know.
            if (report.error_count > 0) {
                notes.push_back(fmt::format("compute-sanitizer ({}) counted {} error(s) in {} that the grader could "
                                            "not read; its report: {}",
                                            to_string(tool), report.error_count, id,
                                            report_file_of(report_dir, id, tool).string()));
                break;
            }
            if (!report.tool_errors.empty()) {
                // The tool cannot work here (a GPU it does not support, say): no rerun will do better.
                notes.push_back(fmt::format("compute-sanitizer could not check the tests here ({}): failures are "
                                            "explained by the tests' own checks only.",
                                            report.tool_errors.front()));
                tool_failed = true;
                break;
            }
            if (!report.program_ended.empty()) {
                // The program did not end normally under the tool (a crash,
                // as in the graded run, say). The tool found nothing before
                // the end and saw nothing of what never ran after it, so this
                // is not counted as finding nothing; said once for the test below.
                if (ended_under.empty()) how_it_ended = report.program_ended.front();
                ended_under.push_back(to_string(tool));
                continue;
            }
            plan.found_nothing(tool, id);
        }
        if (tool_failed) break;
        if (!ended_under.empty() && !found)
            notes.push_back(fmt::format("compute-sanitizer ({}) found no error in {} before the program ended under "
                                        "it (\"{}\")",
                                        fmt::join(ended_under, ", "), id, how_it_ended));
        if (budget_spent) unchecked.push_back(id);
        else if (rerun) ++checked;
        if (found) {
            const std::string message =
                found_in == id ? evidence_message(*found)
                               : rerun_plan::seen_in_quicker_test(found_in, evidence_message(*found));
            if (failed_on_its_own(t)) {
                t.messages.insert(t.messages.begin(), message);
            } else {
                // A pass stays a pass (the judge decided it); the bug is still worth knowing.
                t.messages.push_back("passed, but " + message);
                notes.push_back(fmt::format("{} passed, but {}", id, message));
            }
        } else if (const auto earlier = plan.earlier_finding(id); earlier && failed_on_its_own(t)) {
            // Said as seen where it was seen: this test ran no such rerun.
            t.messages.insert(t.messages.begin(), *earlier);
        }
    }
    if (!tool_failed) {
        // One note for the reruns spared, whatever the reasons: the report stays short.
        std::string spared = plan.what_was_spared();
        if (const std::string not_run = plan.why_not_run(); !not_run.empty())
            spared = spared.empty() ? "compute-sanitizer: " + not_run : spared + "; " + not_run;
        if (!spared.empty()) notes.push_back(spared);
    }
    if (!filtered.empty()) {
        std::vector<std::string> tools;
        for (const sanitizer_tool tool : sanitizer_tools_in_order)
            if (filtered.count(tool)) tools.push_back(to_string(tool));
        notes.push_back(fmt::format("compute-sanitizer: {} checked only the {} kernel(s) compiled into your code and "
                                    "the test program; the kernels of a library they call (cuBLAS, say) ran unchecked, "
                                    "as a hazard inside them is not one your code can have",
                                    fmt::join(tools, " and "), own_kernels ? own_kernels->size() : 0));
    }
    if (!unchecked.empty())
        notes.push_back(fmt::format("compute-sanitizer did not check {} (or not with every tool): the {} s allowed for its reruns were "
                                    "spent",
                                    fmt::join(unchecked, ", "),
                                    std::chrono::duration_cast<std::chrono::seconds>(options.budget).count()));
    if (options.every_test)
        notes.push_back(fmt::format("--sanitize: compute-sanitizer checked {} GPU correctness test(s) (memcheck, then "
                                    "racecheck, synccheck and initcheck while none had found anything); speed tests "
                                    "are not checked: they run the same kernels on larger inputs",
                                    checked));
    return notes;
}

}  // namespace grader
