#include "runner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "course/testing/evidence.hpp"
#include "course/testing/harness.hpp"
#include "course/testing/kernel_profile.hpp"
#include "kernel_profile.hpp"
#include "process.hpp"
#include "profile_evidence.hpp"
#include "sanitizer_evidence.hpp"

namespace grader {

namespace {
using nlohmann::json;
using clock = std::chrono::steady_clock;

std::filesystem::path evidence_dir(const run_options& options) { return options.log_dir / "evidence"; }
std::filesystem::path claims_dir(const run_options& options) { return options.log_dir / "claims"; }
std::filesystem::path profile_dir(const run_options& options) { return options.log_dir / "profile"; }
// The compute-sanitizer reruns' own logs, evidence and reports.
std::filesystem::path sanitizer_dir(const run_options& options) { return options.log_dir / "sanitizer"; }
// Nsight Compute's profiles of slow tests (profile_evidence.hpp): the same.
std::filesystem::path metrics_dir(const run_options& options) { return options.log_dir / "metrics"; }

// The program's own last words before it died, without GoogleTest's
// progress lines ("[ RUN      ] ..."), which say nothing about the crash.
std::string indent_tail(const std::filesystem::path& log) {
    std::istringstream all(tail_of_file(log, 40));
    std::vector<std::string> own;
    for (std::string line; std::getline(all, line);)
        if (!line.empty() && line.front() != '[' && line.rfind("Note: Google Test filter", 0) != 0 &&
            line.rfind("seed ", 0) != 0)
            own.push_back(line);
    if (own.empty()) return {};
    std::string text = "last output:";
    for (std::size_t i = own.size() > 6 ? own.size() - 6 : 0; i < own.size(); ++i) text += "\n" + own[i];
    return text;
}

// What one program said about one test.
struct outcome {
    test_status status = test_status::missing;
    std::vector<std::string> messages;
    double ms = 0;
    bool left_to_judge = false;  // a pass the student's program did not decide ("deferred")
};

// Runs tests of one program (the tests program or the judge) in as many
// processes as it takes, and bounds everything the program can do to the
// grader: each process must finish a test it was asked for or it is the
// last; each test gets one time limit; event lines are checked and capped.
class test_processes {
public:
    using env_list = std::vector<std::pair<std::string, std::string>>;
    using on_finish_fn = std::function<void(const std::string&, const outcome&)>;
    using on_start_fn = std::function<void(const std::string&)>;

    test_processes(const run_options& options, std::filesystem::path program, std::string evidence_mode,
                   std::string log_prefix, std::chrono::milliseconds per_test_limit, env_list env = {})
        : options_(options), program_(std::move(program)), evidence_mode_(std::move(evidence_mode)),
          log_prefix_(std::move(log_prefix)), limit_(per_test_limit), env_(std::move(env)) {}

    // Runs `ids`, then `then` in a second phase of the same process (harness.hpp,
    // --course-then); `on_finish` hears of each test as it ends, and may
    // cancel() tests that have not started.
    std::map<std::string, outcome> run(const std::vector<std::string>& ids, const on_finish_fn& on_finish = {},
                                       const std::vector<std::string>& then = {}) {
        on_finish_ = on_finish;
        std::vector<std::string>& remaining = remaining_;
        remaining = ids;
        remaining.insert(remaining.end(), then.begin(), then.end());
        std::map<std::string, outcome> results;
        // Each process but the last finishes at least one test: so at most
        // one process per test, plus one.
        const std::size_t most_processes = remaining.size() + 1;
        for (std::size_t round = 0; !remaining.empty() && round < most_processes; ++round) {
            const auto log = options_.log_dir / fmt::format("{}-{}.log", log_prefix_, ++round_);
            env_list env{{course::testing::events_fd_variable, std::to_string(child_process::events_fd)},
                         {course::testing::evidence_mode_variable, evidence_mode_},
                         {course::testing::evidence_dir_variable, evidence_dir(options_).string()},
                         {"GTEST_COLOR", "no"}};
            if (!options_.implementation_library.empty())
                env.emplace_back(course::testing::implementation_library_variable,
                                 options_.implementation_library.string());
            env.insert(env.end(), options_.env.begin(), options_.env.end());
            env.insert(env.end(), env_.begin(), env_.end());
            // What is left of the first phase runs first, the second phase after it.
            std::vector<std::string> first, second;
            for (const auto& id : remaining)
                (std::find(then.begin(), then.end(), id) == then.end() ? first : second).push_back(id);
            if (first.empty()) first.swap(second);
            std::vector<std::string> argv{program_.string(), "--gtest_filter=" + fmt::format("{}", fmt::join(first, ":")),
                                          fmt::format("--seed={}", options_.seed)};
            if (!second.empty())
                argv.push_back(fmt::format("{}={}", course::testing::phase2_flag, fmt::join(second, ":")));
            const bool untrusted = evidence_mode_ == "record";
            child_process child({command(argv),
                                 env,
                                 log,
                                 true,
                                 std::nullopt,
                                 max_file_bytes,
                                 max_event_line_bytes,
                                 untrusted ? options_.max_data_bytes : 0,
                                 untrusted ? options_.max_processes : 0});
            const bool again = run_one_process(child, log, remaining, results, {first, second});
            ignored_ += child.dropped_lines();
            if (!again) break;
        }
        const std::vector<std::string> never = std::exchange(remaining, {});
        for (const auto& id : never) {
            results[id] = {test_status::missing, {"the test program never ran this test"}, 0};
            if (on_finish_) on_finish_(id, results[id]);
        }
        return results;
    }

    // Runs the program under `tool` (a profiler's command line, which ends
    // where the program's begins), inside the sandbox where there is one;
    // `writable` is shown writable to it there (where the tool writes).
    void run_under(std::vector<std::string> tool, std::filesystem::path writable) {
        tool_ = std::move(tool);
        tool_writable_ = std::move(writable);
    }

    // Hears of each test as it starts (before its time limit starts to run).
    void on_start(on_start_fn fn) { on_start_ = std::move(fn); }

    // Takes tests that have not started off the list (from on_finish).
    void cancel(const std::vector<std::string>& ids) {
        for (const auto& id : ids) remaining_.erase(std::remove(remaining_.begin(), remaining_.end(), id), remaining_.end());
    }

    // Event lines that were not taken: for tests not asked for or not in
    // progress, repeated, malformed or too long.
    int ignored_events() const { return ignored_; }

private:
    // The student's program runs in the sandbox where there is one; the judge never needs it.
    std::vector<std::string> command(std::vector<std::string> argv) const {
        argv.insert(argv.begin(), tool_.begin(), tool_.end());
        if (!sandboxed()) return argv;
        sandbox_spec spec = options_.sandbox;
        if (!tool_writable_.empty()) spec.writable.push_back(tool_writable_);
        spec.readable.push_back(program_);
        spec.readable.push_back(claims_dir(options_));  // the grader's "go" for the second phase
        spec.writable.push_back(evidence_dir(options_));
        return sandboxed_command(*options_.bwrap, spec, argv);
    }

    bool sandboxed() const { return evidence_mode_ == "record" && options_.bwrap.has_value(); }

    // bubblewrap ends with 128 + N when the program inside died of signal N.
    static exit_status as_seen_inside(exit_status status) {
        if (!status.signaled && status.code > 128 && status.code < 128 + 65) return {true, status.code - 128};
        return status;
    }

    // One process: returns false when nothing more can be learnt from another.
    // `phases`: the tests of each phase of this process, in order.
    bool run_one_process(child_process& child, const std::filesystem::path& log, std::vector<std::string>& remaining,
                         std::map<std::string, outcome>& results, const std::vector<std::vector<std::string>>& phases) {
        std::string current;
        bool progressed = false;
        std::size_t phase = 0;
        // The limit per test runs from the test's start (or the process's),
        // and only events the grader takes restart it.
        auto deadline = clock::now() + limit_;
        auto finish = [&](const std::string& id, outcome result) {
            results[id] = std::move(result);
            if (on_finish_) on_finish_(id, results[id]);
            remaining.erase(std::remove(remaining.begin(), remaining.end(), id), remaining.end());
            current.clear();
            progressed = true;
            deadline = clock::now() + limit_;
        };
        auto asked_for = [&](const std::string& id) {
            return std::find(remaining.begin(), remaining.end(), id) != remaining.end();
        };

        for (;;) {
            bool ended = false;
            const auto line = child.next_event(deadline, ended);
            if (line) {
                const json event = json::parse(*line, nullptr, false);
                const std::string kind = event.is_object() ? string_field(event, "event") : "";
                const std::string id = event.is_object() ? string_field(event, "test") : "";
                if (kind == "start" && current.empty() && asked_for(id)) {
                    current = id;
                    if (on_start_) on_start_(id);
                    start_ = clock::now();
                    deadline = start_ + limit_;
                } else if (kind == "end" && !current.empty() && id == current) {
                    finish(id, parse_end(event));
                } else if (kind == "done" && current.empty() && phase < phases.size()) {
                    // GoogleTest finished a phase: what it did not start, it never will here.
                    for (const auto& never : phases[phase++])
                        if (asked_for(never))
                            finish(never, {test_status::missing, {"the test program ran without running this test"}, 0});
                } else {
                    ++ignored_;
                }
                continue;
            }
            if (ended) {
                const exit_status status = sandboxed() ? as_seen_inside(child.wait()) : child.wait();
                if (!current.empty()) {
                    std::vector<std::string> messages{
                        fmt::format("the test program crashed during this test: {}", status.describe())};
                    if (const std::string tail = indent_tail(log); !tail.empty()) messages.push_back(tail);
                    finish(current, {test_status::crashed, messages, elapsed_ms()});
                } else if (!remaining.empty() && !progressed) {
                    mark_missing(remaining, results,
                                 fmt::format("the test program ended ({}) without running this test",
                                             status.describe()) + "\n" + indent_tail(log));
                    return false;
                }
                return true;
            }
            // The deadline passed.
            child.kill();
            child.wait();
            if (current.empty()) {
                mark_missing(remaining, results,
                             fmt::format("the test program did not start this test within {} s",
                                         limit_.count() / 1000));
                return false;
            }
            finish(current, {test_status::timed_out,
                             {fmt::format("stopped after {} s: the test did not finish.", limit_.count() / 1000),
                              "A kernel that never ends looks like this: a loop whose condition never "
                              "changes, or a __syncthreads() that not every thread of the block reaches."},
                             elapsed_ms()});
            return true;
        }
    }

    static std::string string_field(const json& event, const char* name) {
        const auto it = event.find(name);
        return it != event.end() && it->is_string() ? it->get<std::string>() : std::string();
    }

    // A test's end event, read as untrusted input.
    outcome parse_end(const json& event) {
        outcome result;
        const std::string s = string_field(event, "status");
        result.left_to_judge = s == "deferred";
        result.status = s == "passed" || s == "deferred" ? test_status::passed
                        : s == "skipped"                  ? test_status::skipped
                                                          : test_status::failed;
        if (const auto m = event.find("messages"); m != event.end() && m->is_array()) {
            for (const auto& text : *m) {
                if (!text.is_string()) continue;
                if (result.messages.size() == max_messages_per_test) break;
                std::string message = clean_message(text.get<std::string>());
                if (message.size() > max_message_bytes) message = message.substr(0, max_message_bytes) + " [...]";
                result.messages.push_back(std::move(message));
            }
        }
        if (const auto ms = event.find("ms"); ms != event.end() && ms->is_number()) result.ms = ms->get<double>();
        if (result.status == test_status::failed && result.messages.empty())
            result.messages.push_back("the test failed without a message");
        return result;
    }

    void mark_missing(std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                      const std::string& why) {
        const std::vector<std::string> never = std::exchange(remaining, {});  // on_finish may cancel()
        for (const auto& id : never) {
            results[id] = {test_status::missing, {why}, 0};
            if (on_finish_) on_finish_(id, results[id]);
        }
    }

    double elapsed_ms() const {
        return std::chrono::duration<double, std::milli>(clock::now() - start_).count();
    }

    const run_options& options_;
    std::filesystem::path program_;
    std::string evidence_mode_;
    std::string log_prefix_;
    std::chrono::milliseconds limit_;
    env_list env_;
    on_finish_fn on_finish_;
    on_start_fn on_start_;
    std::vector<std::string> remaining_;
    std::vector<std::string> tool_;
    std::filesystem::path tool_writable_;
    clock::time_point start_ = clock::now();
    int round_ = 0;
    int ignored_ = 0;
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}
}  // namespace

graded_test not_yet_run(const listed_test& listed) {
    graded_test g;
    g.id = listed.id;
    g.title = listed.title;
    g.points = listed.points;
    g.performance = listed.kind == "performance";
    g.gpu = listed.gpu;
    return g;
}

std::vector<listed_test> list_graded_tests(const std::filesystem::path& tests_program,
                                           const std::filesystem::path& log_dir) {
    const auto out = log_dir / "graded-list.json";
    const exit_status status = run_command({tests_program.string(), course::testing::list_flag}, out);
    if (status.signaled || status.code != 0)
        throw std::runtime_error(fmt::format("{} could not list its graded tests ({}):\n{}",
                                             tests_program.filename().string(), status.describe(),
                                             tail_of_file(out, 10)));
    const json list = json::parse(file_text(out));
    std::vector<listed_test> tests;
    for (const auto& t : list.at("tests"))
        tests.push_back({t.at("id"), t.at("title"), t.at("kind"), t.at("points"), t.at("gpu"), t.value("alone", false),
                         t.value("profiled", false), t.value("kernel_speed", false)});
    return tests;
}

std::string clean_message(const std::string& raw) {
    std::string text = raw;
    // ADD_FAILURE() << "..." arrives as "Failed\n...": the word adds nothing.
    if (text.rfind("Failed\n", 0) == 0) text.erase(0, 7);
    // SCOPED_TRACE context: "...\nGoogle Test trace:\nfile.cpp:12: n = 129" -> "... (n = 129)"
    std::string context;
    if (auto at = text.find("\nGoogle Test trace:\n"); at != std::string::npos) {
        std::istringstream trace(text.substr(at + 20));
        for (std::string line; std::getline(trace, line);) {
            const auto colon = line.find(": ");
            if (!line.empty()) context += (context.empty() ? "" : "; ") + (colon == std::string::npos ? line : line.substr(colon + 2));
        }
        text.erase(at);
    }
    // Exceptions: C++ exception with description "X" thrown in the test body.
    const std::string prefix = "C++ exception with description \"";
    if (text.rfind(prefix, 0) == 0) {
        const auto end = text.rfind("\" thrown in ");
        std::string what = text.substr(prefix.size(), end == std::string::npos ? std::string::npos : end - prefix.size());
        text = "threw " + what;
        if (what.rfind("not implemented yet:", 0) == 0)
            text = what + "\nthis part is unfinished: write it, then delete the course::todo(...) call";
    }
    replace_all(text, "\n\n", "\n");
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (!context.empty()) text += "\n(with " + context + ")";
    return text;
}

namespace {

// Written atomically (a rename): a reader sees the whole word or no file.
void write_word(const std::filesystem::path& file, const std::string& word) {
    const auto partial = file.string() + ".partial";
    std::ofstream(partial) << word;
    std::filesystem::rename(partial, file);
}

// The judge runs beside the student's program, one test behind it: the
// grader writes each test's claim ("passed", "failed", ...) once the
// student's program has ended the test (and so closed its evidence), and the
// judge, waiting for it, judges the test at once when the claim is a pass
// (and skips it otherwise). The claims are written by the grader alone, in a
// folder the sandbox does not show; the judge's verdicts are kept here.
class concurrent_judge {
public:
    // Judges `first`, then `then` (the performance tests) in the same process.
    concurrent_judge(const run_options& options, const std::vector<std::string>& first,
                     const std::vector<std::string>& then, const std::string& log_prefix = "judge")
        : options_(options), ids_(first) {
        ids_.insert(ids_.end(), then.begin(), then.end());
        // The judge may wait a whole test of the student's before judging it.
        const auto limit = 2 * options.per_test_limit + std::chrono::seconds(30);
        judge_ = std::make_unique<test_processes>(
            options, options.judge_program, "judge", log_prefix, limit,
            test_processes::env_list{{course::testing::evidence_claims_variable, claims_dir(options).string()},
                                     {course::testing::evidence_wait_variable, std::to_string(limit.count())}});
        thread_ = std::thread([this, first, then] {
            judge_->run(
                first,
                [this](const std::string& id, const outcome& verdict) {
                    std::lock_guard lock(mutex_);
                    verdicts_[id] = verdict;
                    changed_.notify_all();
                },
                then);
            std::lock_guard lock(mutex_);
            done_ = true;
            changed_.notify_all();
        });
    }
    ~concurrent_judge() { finish(); }

    // Claims what was never claimed (nothing left to wait for) and waits for the judge to end.
    void finish() {
        for (const auto& id : ids_) claim(id, test_status::not_run);
        if (thread_.joinable()) thread_.join();
    }

    // Written once per test, so the judge never reads half a claim.
    void claim(const std::string& id, test_status status) {
        if (!claimed_.insert(id).second) return;
        if (status == test_status::passed) passes_.push_back(id);
        write_word(claims_dir(options_) / (course::testing::evidence_file_name(id) + ".claim"), to_string(status));
    }

    // Waits until the judge has a verdict on every pass claimed so far: it is idle.
    void wait_idle() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
            return done_ || std::all_of(passes_.begin(), passes_.end(),
                                        [&](const std::string& id) { return verdicts_.count(id) > 0; });
        });
    }

    // The judge's verdict on `id`, once it has one (or has stopped).
    outcome verdict(const std::string& id) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return done_ || verdicts_.count(id) > 0; });
        if (auto it = verdicts_.find(id); it != verdicts_.end()) return it->second;
        return {test_status::missing, {"the judge never reported this test"}, 0};
    }

    // Once the student's side is done: what the judge wrote that was not taken.
    int ignored_events() {
        finish();
        return judge_->ignored_events();
    }

private:
    const run_options& options_;
    std::vector<std::string> ids_;
    std::unique_ptr<test_processes> judge_;
    std::set<std::string> claimed_;
    std::vector<std::string> passes_;  // claimed passes, which the judge will judge
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::string, outcome> verdicts_;
    bool done_ = false;
    std::thread thread_;
};

// The student's claim, and, for a claimed pass, the judge's verdict: the test's result.
void settle(graded_test& t, const outcome& said, concurrent_judge& judge) {
    t.status = said.status;
    t.messages = said.messages;
    t.ms = said.ms;
    if (said.status != test_status::passed) return;
    const outcome verdict = judge.verdict(t.id);
    if (verdict.status == test_status::passed) return;
    t.status = test_status::failed;
    t.messages.clear();
    if (!said.left_to_judge)
        t.messages.push_back("the test program said this test passed, but its recorded results do not pass it:");
    if (verdict.status != test_status::failed)
        t.messages.push_back(fmt::format("(the judge could not check them: it {})", to_string(verdict.status)));
    t.messages.insert(t.messages.end(), verdict.messages.begin(), verdict.messages.end());
}

void note_ignored_events(concurrent_judge& judge, std::vector<std::string>& notes) {
    if (const int ignored = judge.ignored_events(); ignored > 0)
        notes.push_back(fmt::format("the judge wrote {} event line(s) that were ignored", ignored));
}

// Old logs, evidence and claims go first: evidence from another run proves nothing.
void clear_run_files(const run_options& options) {
    std::error_code ec;
    std::filesystem::remove_all(evidence_dir(options), ec);
    std::filesystem::remove_all(claims_dir(options), ec);
    std::filesystem::remove_all(profile_dir(options), ec);
    std::filesystem::remove_all(sanitizer_dir(options), ec);
    std::filesystem::remove_all(metrics_dir(options), ec);
    for (const auto& entry : std::filesystem::directory_iterator(options.log_dir, ec))
        if (entry.path().extension() == ".log") std::filesystem::remove(entry.path(), ec);
    std::filesystem::create_directories(evidence_dir(options));
    std::filesystem::create_directories(claims_dir(options));
    std::filesystem::create_directories(profile_dir(options));
}

// Nsight Compute, and the kernels compiled into the student's library and
// into the test program: what it takes to say where a kernel came from.
struct kernel_profiler {
    std::filesystem::path ncu, cuobjdump;
    kernel_sources sources;

    // Read once the profiled tests are about to run (never on a machine
    // without a GPU, where they are not). A library with no kernels yet (a
    // skeleton) lists none: then none are its own.
    void list_kernels(const run_options& options) {
        sources = kernel_sources_of(cuobjdump, options.implementation_library, options.tests_program,
                                    profile_dir(options));
    }
};

std::optional<kernel_profiler> find_kernel_profiler(const run_options& options) {
    if (!options.profile_kernels || options.implementation_library.empty()) return std::nullopt;
    const auto ncu = find_ncu();
    const auto cuobjdump = find_cuobjdump();
    if (!ncu || !cuobjdump) return std::nullopt;
    return kernel_profiler{*ncu, *cuobjdump, {}};
}

// What the judge reads about a profiled test: ncu's launches with their
// origin, or why there is no profile (ncu failed: its own words).
json profile_for_judge(const kernel_profiler& profiler, const std::filesystem::path& csv) {
    const std::string text = file_text(csv);
    if (text.empty()) return no_profile("ncu wrote no report");
    const std::vector<kernel_launch> launches = parse_ncu_csv(text);
    // ncu's own errors mean no profile, unless it profiled kernels anyway; a
    // test program that ends with 1 (a failed test) is not one.
    if (const auto errors = ncu_errors(text); launches.empty() && !errors.empty()) return no_profile(errors.front());
    return attribute_launches(launches, profiler.sources.own, profiler.sources.test_program);
}

// Runs single tests of the student's program again under a tool
// (compute-sanitizer, ncu), each alone in a process of its own (sandboxed
// where the run is), with logs and evidence in a folder of their own, apart
// from the graded run's: the judge has finished with those, and these prove
// nothing. The tool writes its reports into reports().
class tool_reruns {
public:
    tool_reruns(const run_options& options, std::filesystem::path dir, std::string log_prefix)
        : options_(options), rerun_(options), log_prefix_(std::move(log_prefix)) {
        rerun_.log_dir = std::move(dir);
        std::filesystem::create_directories(evidence_dir(rerun_));
        std::filesystem::create_directories(claims_dir(rerun_));  // empty: nothing to wait for
    }
    const std::filesystem::path& log_dir() const { return rerun_.log_dir; }
    std::filesystem::path reports() const { return rerun_.log_dir / "reports"; }

    void run(const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds limit) {
        test_processes under_tool(rerun_, options_.tests_program, "record", fmt::format("{}{}", log_prefix_, ++runs_),
                                  limit);
        under_tool.run_under(tool, reports());
        under_tool.run({id});
    }

private:
    const run_options& options_;
    run_options rerun_;
    std::string log_prefix_;
    int runs_ = 0;
};

// Reruns failed tests (or, with --sanitize, every GPU test) under compute-sanitizer.
std::vector<std::string> add_sanitizer_findings(const run_options& options, std::vector<graded_test>& tests,
                                                gpu_turn& turn) {
    if (!options.sanitize_failures && !options.sanitize_every_test) return {};
    tool_reruns reruns(options, sanitizer_dir(options), "sanitizer");
    sanitizer_options plan;
    plan.every_test = options.sanitize_every_test;
    plan.budget = plan.every_test ? sanitize_all_budget : failure_rerun_budget;
    plan.per_rerun_limit = sanitizer_limit_factor * options.per_test_limit;
    return add_sanitizer_evidence(
        tests, plan, reruns.reports(),
        [&](const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds limit) {
            turn.let_waiting_runs_in();  // each rerun may take many seconds
            reruns.run(id, tool, limit);
        });
}

// Profiles slow tests (or, with --profile, every performance test) under
// Nsight Compute, with the GPU to this run alone.
std::vector<std::string> add_profile_findings(const run_options& options, const std::set<std::string>& kernel_speed,
                                              std::vector<graded_test>& tests, gpu_turn& turn) {
    if (!options.profile_failures && !options.profile_every_test) return {};
    tool_reruns reruns(options, metrics_dir(options), "profile");
    profile_options plan;
    plan.every_test = options.profile_every_test;
    plan.budget = plan.every_test ? profile_all_budget : failure_profile_budget;
    plan.per_run_limit = sanitizer_limit_factor * options.per_test_limit;
    auto list_sources = [&] {
        return kernel_sources_of(find_cuobjdump(), options.implementation_library, options.tests_program,
                                 reruns.log_dir());
    };
    return add_profile_evidence(
        tests, kernel_speed, plan, reruns.reports(), list_sources,
        [&](const std::string& id, const std::vector<std::string>& tool, std::chrono::milliseconds limit) {
            turn.alone();
            reruns.run(id, tool, limit);
        });
}

}  // namespace

graded_run judge_graded_tests(const run_options& options) {
    std::filesystem::create_directories(options.log_dir);
    clear_run_files(options);
    graded_run run;
    const std::vector<listed_test> listed = list_graded_tests(options.judge_program, options.log_dir);
    // Shared now; alone once a timed test is about to start.
    gpu_turn turn(options.gate);
    for (const auto& t : listed) {
        if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), t.id) == options.only.end())
            continue;
        run.tests.push_back(not_yet_run(t));
    }
    std::map<std::string, graded_test*> by_id;
    std::vector<std::string> correctness, performance;
    std::set<std::string> alone, profiled, kernel_speed;
    for (auto& t : run.tests) {
        by_id[t.id] = &t;
        (t.performance ? performance : correctness).push_back(t.id);
    }
    for (const auto& t : listed) {
        if (t.alone) alone.insert(t.id);
        if (t.profiled && by_id.count(t.id)) profiled.insert(t.id);
        if (t.kernel_speed) kernel_speed.insert(t.id);
    }
    // Profiled tests run last, each in a process of its own under ncu (so
    // that every kernel ncu saw belongs to that test), where ncu is here.
    std::optional<kernel_profiler> profiler = profiled.empty() ? std::nullopt : find_kernel_profiler(options);
    std::vector<std::string> timed_in_run, timed_under_ncu;
    for (const auto& id : performance) (profiler && profiled.count(id) ? timed_under_ncu : timed_in_run).push_back(id);

    // One process of the student's program runs the correctness tests, then,
    // once the judge has passed them all, the performance tests (the grader
    // says "go" or "stop" in between); one judge process follows it, a test
    // behind. Speed is only worth grading once the answers are right, and
    // timing needs the GPU to itself: the judge is done with the correctness
    // tests before "go".
    const auto limit = options.per_test_limit;
    concurrent_judge judge(options, correctness, timed_in_run);
    const test_processes::env_list student_env{
        {course::testing::evidence_claims_variable, claims_dir(options).string()},
        {course::testing::evidence_wait_variable, std::to_string((2 * limit + std::chrono::seconds(30)).count())}};
    test_processes student(options, options.tests_program, "record", "run", limit, student_env);
    std::set<std::string> correctness_left(correctness.begin(), correctness.end());
    std::map<std::string, outcome> said;
    bool go = false;
    auto decide_performance = [&] {
        for (const auto& id : correctness) settle(*by_id[id], said[id], judge);
        go = std::all_of(correctness.begin(), correctness.end(),
                         [&](const std::string& id) { return by_id[id]->status == test_status::passed; });
        write_word(claims_dir(options) / course::testing::phase2_file, go ? "go" : "stop");
        if (go) return;
        student.cancel(performance);
        const auto skipped = std::find_if(run.tests.begin(), run.tests.end(), [](const graded_test& t) {
            return t.status == test_status::skipped;
        });
        for (const auto& id : performance) {
            judge.claim(id, test_status::not_run);
            if (skipped != run.tests.end()) {
                by_id[id]->status = test_status::skipped;
                by_id[id]->messages = skipped->messages;
            } else {
                by_id[id]->status = test_status::not_run;
                by_id[id]->messages = {"needs correctness first"};
            }
        }
    };
    if (correctness.empty()) decide_performance();
    // A test that measures time starts once the judge is idle.
    auto gpu_alone = [&](concurrent_judge& busy) {
        return [&](const std::string& id) {
            if (!alone.count(id)) return;
            turn.alone();
            busy.wait_idle();
            write_word(claims_dir(options) / (course::testing::evidence_file_name(id) + ".alone"), "go");
        };
    };
    student.on_start(gpu_alone(judge));
    student.run(
        correctness,
        [&](const std::string& id, const outcome& result) {
            said[id] = result;
            judge.claim(id, result.status);
            if (correctness_left.erase(id) > 0 && correctness_left.empty()) decide_performance();
        },
        timed_in_run);
    for (const auto& id : timed_in_run)
        if (said.count(id)) settle(*by_id[id], said[id], judge);

    if (go && !timed_under_ncu.empty()) {
        // The GPU is taken alone when the test starts (gpu_alone), not while
        // ncu and the program start up, which takes seconds and no GPU time.
        judge.wait_idle();
        profiler->list_kernels(options);
        // Their own judge: it waits for each claim, which comes once ncu's report is read.
        concurrent_judge profiled_judge(options, timed_under_ncu, {}, "judge-profiled");
        bool unprofiled_noted = false;
        for (std::size_t i = 0; i < timed_under_ncu.size(); ++i) {
            const std::string& id = timed_under_ncu[i];
            const auto csv = profile_dir(options) / (course::testing::evidence_file_name(id) + ".ncu.csv");
            test_processes under_ncu(options, options.tests_program, "record", fmt::format("profile{}", i + 1), limit,
                                     student_env);
            under_ncu.run_under(ncu_command(profiler->ncu, csv), profile_dir(options));
            under_ncu.on_start(gpu_alone(profiled_judge));
            const auto results = under_ncu.run({id});
            said[id] = results.at(id);
            // The process has ended: ncu's report is complete.
            const json profile = profile_for_judge(*profiler, csv);
            if (!profile.value("profiled", false) && !unprofiled_noted) {
                unprofiled_noted = true;
                run.notes.push_back(fmt::format(
                    "ncu could not profile the speed tests ({}): their figures are the test program's own timing, "
                    "which the code under test could forge. Where ncu may not read the GPU's counters "
                    "(ERR_NVGPUCTRPERM), an administrator can allow it: see NVIDIA's ERR_NVGPUCTRPERM page.",
                    profile.value("reason", "")));
            }
            const auto file = claims_dir(options) / (course::testing::evidence_file_name(id) +
                                                     course::testing::kernel_profile_suffix);
            write_word(file, profile.dump());
            profiled_judge.claim(id, said[id].status);
            settle(*by_id[id], said[id], profiled_judge);
            if (under_ncu.ignored_events() > 0)
                run.notes.push_back(fmt::format("the test program wrote {} event line(s) under ncu that were ignored",
                                                under_ncu.ignored_events()));
        }
        note_ignored_events(profiled_judge, run.notes);
    } else if (!profiled.empty() && !profiler && options.profile_kernels &&
               std::any_of(profiled.begin(), profiled.end(), [&](const std::string& id) {
                   return by_id[id]->status == test_status::passed || by_id[id]->status == test_status::failed;
               })) {
        run.notes.push_back(
            "Nsight Compute (ncu) or cuobjdump was not found, so the speed tests of hand-written kernels rest on "
            "the test program's own timing and the library check: install Nsight Compute (it comes with the "
            "CUDA toolkit) where grades count.");
    }

    if (student.ignored_events() > 0)
        run.notes.push_back(fmt::format(
            "the test program wrote {} event line(s) that were ignored: for tests it was not running, "
            "repeated, malformed or too long",
            student.ignored_events()));
    note_ignored_events(judge, run.notes);
    run.kernel_speed = std::move(kernel_speed);
    return run;  // out of the gate: a run held alone lets the others in
}

bool explaining_needs_the_gpu_alone(const run_options& options, const graded_run& run) {
    if (!options.profile_failures && !options.profile_every_test) return false;
    return !tests_to_profile(run.tests, run.kernel_speed, options.profile_every_test).empty();
}

bool has_failures_to_explain(const run_options& options, const graded_run& run) {
    // The same choices explain_failures makes: a failed host test, or a GPU
    // test of unfinished work, is rerun under no tool.
    const bool sanitizes = (options.sanitize_failures || options.sanitize_every_test) &&
                           !tests_to_sanitize(run.tests, options.sanitize_every_test).empty();
    return sanitizes || explaining_needs_the_gpu_alone(options, run);
}

void explain_failures(const run_options& options, graded_run& run) {
    // Every verdict is in: what the tools find explains them, and changes
    // none. The profiles come first: they take the GPU alone (a profile's
    // figures, DRAM throughput and time, are only right so), and in a batch
    // they should not wait behind other runs' long sanitizer reruns.
    const auto evidence_start = clock::now();
    std::vector<std::string> profile_notes, sanitizer_notes;
    {
        gpu_turn turn(options.gate);
        profile_notes = add_profile_findings(options, run.kernel_speed, run.tests, turn);
    }
    {
        gpu_turn turn(options.gate);  // the sanitizer times nothing, so it shares the GPU
        sanitizer_notes = add_sanitizer_findings(options, run.tests, turn);
    }
    run.notes.insert(run.notes.end(), sanitizer_notes.begin(), sanitizer_notes.end());
    run.notes.insert(run.notes.end(), profile_notes.begin(), profile_notes.end());
    run.evidence_seconds = std::chrono::duration<double>(clock::now() - evidence_start).count();
}

graded_run run_graded_tests(const run_options& options) {
    graded_run run = judge_graded_tests(options);
    explain_failures(options, run);
    return run;
}

}  // namespace grader
