#include "run/test_processes.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <thread>

#include "course/testing/evidence.hpp"
#include "course/testing/harness.hpp"
#include "run/gpu_helpers.hpp"
#include "run/host_spans.hpp"
#include "run/time_limit.hpp"
#include "system/process_tree.hpp"

namespace grader {

namespace {
// bubblewrap ends with 128 + N when the program inside died of signal N.
exit_status as_seen_inside(exit_status status) {
    if (!status.signaled && status.code > 128 && status.code < 128 + 65) return {true, status.code - 128};
    return status;
}

// Why a test that no process of the program reached has no result.
constexpr const char* never_ran = "the test program never ran this test";

double seconds(std::chrono::milliseconds ms) { return std::chrono::duration<double>(ms).count(); }
}  // namespace

std::vector<std::pair<std::string, std::string>> grader_words_env(const std::filesystem::path& claims,
                                                                  std::chrono::milliseconds per_test_limit) {
    // The grader's own limits end a wait that runs too long (a judge's test
    // that waits for a claim is stopped at its limit), and in a batch a word
    // may come long after a test's limit: a timed test waits for the GPU
    // alone behind other runs first. So this is only the wait's last bound,
    // for a program whose grader died without its children.
    const auto wait = std::max<std::chrono::milliseconds>(2 * per_test_limit + std::chrono::seconds(30),
                                                          std::chrono::hours(1));
    return {{course::testing::evidence_claims_variable, claims.string()},
            {course::testing::evidence_wait_variable, std::to_string(wait.count())}};
}

std::string glibc_tunables_for_tests(const char* inherited) {
    std::string tunables =
        "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296";
    // Where a tunable is given twice the last one counts: the grader's own
    // settings (an instructor's, a cluster's) win over the course's.
    if (inherited && *inherited) tunables += std::string(":") + inherited;
    return tunables;
}

// One process after another until `remaining` is done; `whole` where this
// is the program's only line of processes (not one of a parallel wave): it
// may step aside between processes (before_restart) and split what is left.
void test_processes::run_rounds(std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                                const std::vector<std::string>& then, bool whole) {
    // Each process but the last finishes at least one test: so at most
    // one process per test, plus one.
    const std::size_t most_processes = remaining.size() + 1;
    for (std::size_t round = 0; !remaining.empty() && round < most_processes; ++round) {
        if (stop_asked()) break;
        if (round > 0 && whole && before_restart_) before_restart_();
        if (round > 0 && whole && run_a_parallel_wave(remaining, results, then)) continue;
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
        // One queue where the caller's environment asks for it (a tool's rerun) or these tests allow it.
        const auto queues = std::find_if(env.begin(), env.end(),
                                         [](const auto& e) { return e.first == one_hardware_queue_env.first; });
        const bool one_queue =
            queues == env.end() ? one_queue_for(remaining) : queues->second == one_hardware_queue_env.second;
        if (queues == env.end() && one_queue) env.push_back(one_hardware_queue_env);
        std::vector<std::string> argv{program_.string(), "--gtest_filter=" + fmt::format("{}", fmt::join(first, ":")),
                                      fmt::format("--seed={}", options_.seed)};
        if (!second.empty())
            argv.push_back(fmt::format("{}={}", course::testing::phase2_flag, fmt::join(second, ":")));
        const bool untrusted = evidence_mode_ == "record";
        gpu_turn::process_slot slot(options_.turn);  // waits while another run has the GPU alone
        std::optional<process_refusals> refusals;
        if (threads_only()) refusals.emplace();
        const auto spawned = clock::now();
        auto child = std::make_unique<child_process>(child_process::options{command(argv),
                             env,
                             log,
                             true,
                             std::nullopt,
                             max_file_bytes,
                             max_event_line_bytes,
                             untrusted ? options_.max_data_bytes : 0,
                             untrusted ? options_.max_processes : 0,
                             kept_output_bytes,
                             refusals ? refusals->child_end() : -1,
                             niceness_});
        slot.started(child->pid());
        if (refusals) refusals->listen();
        bool exiting = false;
        const bool again = run_one_process(*child, spawned, one_queue, exiting, refusals ? &*refusals : nullptr, log,
                                           remaining, results, {first, second});
        ignored_ += child->dropped_lines();
        if (exiting) std::thread([exited = std::move(child)] { exited->wait(); }).detach();
        if (!again) break;
    }
}

bool test_processes::run_a_parallel_wave(std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                                         const std::vector<std::string>& then) {
    if (parallel_restarts_ < 2) return false;
    // Only the first phase's tests, none that must have the GPU to itself.
    std::vector<std::string> spread;
    for (const auto& id : remaining)
        if (std::find(then.begin(), then.end(), id) == then.end() && !keep_in_line_.count(id)) spread.push_back(id);
    // Those that need the driver's hardware queues go in a line of their own
    // (one_hardware_queue_unless), so that the other lines can do with one.
    std::vector<std::string> own_line;
    if (need_queues_) {
        const auto needs = [&](const std::string& id) { return need_queues_->count(id) > 0; };
        std::copy_if(spread.begin(), spread.end(), std::back_inserter(own_line), needs);
        spread.erase(std::remove_if(spread.begin(), spread.end(), needs), spread.end());
    }
    const std::size_t dealt = std::min<std::size_t>(parallel_restarts_, spread.size());
    const std::size_t lines = dealt + (own_line.empty() ? 0 : 1);
    if (lines < 2) return false;
    // Dealt out in turn, so that each line gets some of the large tests.
    std::vector<std::vector<std::string>> line_tests(lines);
    for (std::size_t i = 0; i < spread.size(); ++i) line_tests[i % dealt].push_back(spread[i]);
    if (!own_line.empty()) line_tests.back() = std::move(own_line);
    std::vector<std::map<std::string, outcome>> line_results(lines);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < lines; ++i)
        threads.emplace_back([&, i] { run_rounds(line_tests[i], line_results[i], {}, false); });
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < lines; ++i) {
        // What a line left (a process that ended without running it, a stop) is missing there too.
        mark_missing(line_tests[i], line_results[i], never_ran);
        for (auto& [id, result] : line_results[i]) results[id] = std::move(result);
    }
    remaining.erase(std::remove_if(remaining.begin(), remaining.end(),
                                   [&](const std::string& id) { return results.count(id) > 0; }),
                    remaining.end());
    return true;
}

bool test_processes::one_queue_for(const std::vector<std::string>& ids) const {
    return need_queues_ &&
           std::none_of(ids.begin(), ids.end(), [&](const std::string& id) { return need_queues_->count(id) > 0; });
}

void test_processes::tell_finished(const std::string& id, const outcome& result) {
    if (!on_finish_) return;
    std::lock_guard lock(callback_mutex_);
    on_finish_(id, result);
}

std::map<std::string, outcome> test_processes::run(const std::vector<std::string>& ids, const on_finish_fn& on_finish,
                                                    const std::vector<std::string>& then) {
    on_finish_ = on_finish;
    std::vector<std::string>& remaining = remaining_;
    remaining = ids;
    remaining.insert(remaining.end(), then.begin(), then.end());
    std::map<std::string, outcome> results;
    run_rounds(remaining, results, then, true);
    mark_missing(remaining, results, never_ran);
    return results;
}

void test_processes::cancel(const std::vector<std::string>& ids) {
    for (const auto& id : ids) remaining_.erase(std::remove(remaining_.begin(), remaining_.end(), id), remaining_.end());
}

// The student's program runs in the sandbox where there is one; the judge
// needs it only where it is the student's program too (a practice grade).
std::vector<std::string> test_processes::command(std::vector<std::string> argv) const {
    if (threads_only())
        argv.insert(argv.begin(), {options_.threads_only_launcher.string(), std::to_string(child_process::passed_fd)});
    argv.insert(argv.begin(), tool_.begin(), tool_.end());
    if (!sandboxed()) return argv;
    sandbox_spec spec = options_.sandbox;
    if (threads_only()) spec.readable.push_back(options_.threads_only_launcher);
    if (!tool_writable_.empty()) spec.writable.push_back(tool_writable_);
    spec.readable.push_back(program_);
    spec.readable.push_back(claims_dir(options_));  // the grader's "go" for the second phase
    spec.writable.push_back(evidence_dir(options_));
    return sandboxed_command(*options_.bwrap, spec, argv);
}

void test_processes::note_refused(process_refusals* refusals) {
    if (!refusals) return;
    std::lock_guard lock(callback_mutex_);
    for (const auto& what : refusals->take()) {
        std::string note = describe_refused_process(what);
        if (std::find(refused_.begin(), refused_.end(), note) == refused_.end()) refused_.push_back(std::move(note));
    }
}

// One process: returns false when nothing more can be learnt from another.
// `phases`: the tests of each phase of this process, in order.
bool test_processes::run_one_process(child_process& child, clock::time_point spawned, bool one_queue, bool& exiting,
                                     process_refusals* refusals, const std::filesystem::path& log,
                                     std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                                     const std::vector<std::vector<std::string>>& phases) {
    std::string current;
    bool progressed = false;
    std::size_t phase = 0;
    // The limit per test runs from the test's start (or the process's),
    // and only events the grader takes restart it. Time the run was held
    // back by the gate (gpu_gate.hpp) does not count: its processes paused
    // by another run's timed test, or the run waiting for the GPU alone (a
    // judge waits for the claim of a timed test that waits for its turn).
    const auto held_back = [&] {
        return options_.turn ? options_.turn->paused_for() + options_.turn->waited_for_turns() : clock::duration{};
    };
    auto deadline = clock::now() + limit_;
    // The current test's own limit, where it has a tighter one.
    auto limit = limit_;
    auto held_back_counted = held_back();
    // stop_leftovers_after's moment, once every test has ended; never before.
    auto leftovers_at = clock::time_point::max();
    const auto limit_from_now = [&] {
        deadline = clock::now() + limit;
        held_back_counted = held_back();
    };
    // Whether this process has started CUDA yet: its first GPU test does.
    bool cuda_started = false;
    const auto limit_of = [&](const std::string& id, bool starts_cuda) {
        const auto it = test_limits_.by_test.find(id);
        if (it == test_limits_.by_test.end()) return limit_;
        const auto own = it->second + (starts_cuda ? test_limits_.first_gpu_test_extra : std::chrono::milliseconds{0});
        return std::min(own, limit_);
    };
    std::string step;  // the current test's name in `--timings`
    // `--timings`: the process's start-up, each test, and its exit.
    auto last_mark = spawned;
    auto test_started = spawned;
    const auto elapsed_ms = [&] {
        return std::chrono::duration<double, std::milli>(clock::now() - test_started).count();
    };
    std::string waited_for = one_queue ? "start-up (one hardware queue)" : "start-up";
    auto timed = [&](const std::string& step) {
        const auto now = clock::now();
        if (options_.timings) options_.timings->add(fmt::format("{}: {}", who(), step), last_mark, now);
        last_mark = now;
    };
    // Outside the sandbox, whether a helper process held the GPU during a timed test.
    std::optional<gpu_helper_watch> helpers;
    const bool watch_helpers = evidence_mode_ == "record" && !sandboxed() && !options_.gpu_pci_bus_id.empty();
    auto finish = [&](const std::string& id, outcome result) {
        if (helpers) {
            const auto holders = helpers->stop();
            helpers.reset();
            if (holders.size() > 1 && result.status == test_status::passed)
                result = {test_status::failed, {describe_gpu_helpers(holders)}, result.ms};
        }
        timed(id == current ? step : id);
        waited_for = "between tests";
        results[id] = std::move(result);
        tell_finished(id, results[id]);
        remaining.erase(std::remove(remaining.begin(), remaining.end(), id), remaining.end());
        current.clear();
        progressed = true;
        limit = limit_;
        limit_from_now();
    };
    auto asked_for = [&](const std::string& id) {
        return std::find(remaining.begin(), remaining.end(), id) != remaining.end();
    };

    std::optional<host_spans> spans;  // the test in progress's, in the student's program
    for (;;) {
        bool ended = false;
        // Where the run may be stopped from outside, woken now and then to look.
        const auto wake = stop_ ? std::min(deadline, clock::now() + stop_poll) : deadline;
        const auto line = child.next_event(wake, ended);
        if (line) {
            const nlohmann::json event = nlohmann::json::parse(*line, nullptr, false);
            const std::string kind = event.is_object() ? string_field(event, "event") : "";
            const std::string id = event.is_object() ? string_field(event, "test") : "";
            if (kind == "start" && current.empty() && asked_for(id)) {
                timed(waited_for);
                current = id;
                // The student's program may ask the grader to time host work (host_spans.hpp).
                if (evidence_mode_ == "record") spans.emplace(claims_dir(options_), id);
                if (on_start_) {
                    {
                        std::lock_guard lock(callback_mutex_);
                        on_start_(id);
                    }
                    // A timed test's wait for its turn (the GPU alone) is its
                    // own step, not part of the test's time.
                    if (clock::now() - last_mark > std::chrono::milliseconds(1))
                        timed(fmt::format("{}, waiting for its turn", id));
                }
                test_started = clock::now();
                const bool gpu_test = test_limits_.gpu_tests.count(id) > 0;
                const bool starts_cuda = gpu_test && !cuda_started;
                cuda_started = cuda_started || gpu_test;
                limit = limit_of(id, starts_cuda);
                limit_from_now();
                step = starts_cuda ? id + " (its process's first GPU test: CUDA starts)" : id;
                if (watch_helpers && watched_.count(id)) helpers.emplace(options_.gpu_pci_bus_id, child.pid());
            } else if (kind == "end" && !current.empty() && id == current) {
                finish(id, read_end_event(event));
                if (let_the_last_exit_go_ && remaining.empty()) {
                    exiting = true;
                    return false;
                }
                if (leftover_grace_ && !tool_.empty() && remaining.empty()) {
                    leftovers_at = clock::now() + *leftover_grace_;
                    deadline = std::min(deadline, leftovers_at);
                }
            } else if (kind == "span" && !current.empty() && id == current && spans && spans->take(event)) {
                // A round of the test's host work, on the grader's clock: no progress, no new limit.
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
            ended_by_itself_ = true;
            const exit_status status = sandboxed() ? as_seen_inside(child.wait()) : child.wait();
            // Which test an attempt came in is not said: the attempt and the
            // test's start event reach the grader by different ways, in
            // either order.
            note_refused(refusals);
            if (current.empty()) timed(progressed ? "exit" : waited_for);
            if (!current.empty()) {
                std::vector<std::string> messages{
                    fmt::format("the test program crashed during this test: {}", status.describe())};
                if (const std::string tail = last_output(log); !tail.empty()) messages.push_back(tail);
                finish(current, {test_status::crashed, messages, elapsed_ms()});
            } else if (!remaining.empty() && !progressed) {
                mark_missing(remaining, results,
                             fmt::format("the test program ended ({}) without running this test",
                                         status.describe()) + "\n" + last_output(log));
                return false;
            }
            return true;
        }
        if (stop_asked()) {
            ended_by_itself_ = false;
            child.kill();
            child.wait();
            note_refused(refusals);
            const std::string why = "stopped: a timed test needed the GPU, and this run was feedback";
            if (current.empty()) mark_missing(remaining, results, why);
            else finish(current, {test_status::crashed, {why}, elapsed_ms()});
            return false;
        }
        if (clock::now() < deadline) continue;  // woken only to look for a stop
        if (clock::now() >= leftovers_at) {
            // Every test has ended, and the tool still waits for the program.
            leftovers_at = clock::time_point::max();
            for (const int pid : processes_running(child.pid(), program_)) ::kill(pid, SIGKILL);
            limit_from_now();
            continue;
        }
        if (const auto now_held_back = held_back(); now_held_back > held_back_counted) {
            deadline += now_held_back - held_back_counted;
            held_back_counted = now_held_back;
            continue;
        }
        ended_by_itself_ = false;
        // The deadline passed. How busy the GPU was is read before the kill,
        // which would end any kernel of the program's.
        const gpu_reading seen = current.empty() ? gpu_reading{}
                                                 : read_gpu_before_kill(options_.gpu_pci_bus_id,
                                                                        options_.gate != nullptr, child.pid());
        child.kill();
        child.wait();
        note_refused(refusals);
        if (current.empty()) {
            mark_missing(remaining, results,
                         fmt::format("the test program did not start this test within {} s",
                                     limit_.count() / 1000));
            return false;
        }
        // One failure, said in two parts: the limit (and, where the test has
        // one of its own, where that came from), then what the GPU was doing.
        std::string stopped = fmt::format("stopped after {:g} s: the test did not finish.", seconds(limit));
        if (limit < limit_)
            stopped += fmt::format("\nIts limit was {:g} s: {}; other tests have {:g} s.", seconds(limit),
                                   test_limits_.why, seconds(limit_));
        finish(current, {test_status::timed_out, {stopped, what_the_stopped_test_was_doing(seen)}, elapsed_ms()});
        return true;
    }
}

void test_processes::mark_missing(std::vector<std::string>& remaining, std::map<std::string, outcome>& results,
                                  const std::string& why) {
    const std::vector<std::string> never = std::exchange(remaining, {});  // on_finish may cancel()
    for (const auto& id : never) {
        results[id] = {test_status::missing, {why}, 0};
        tell_finished(id, results[id]);
    }
}

}  // namespace grader
