#include "runner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "course/testing/harness.hpp"
#include "process.hpp"

namespace grader {

namespace {
using nlohmann::json;
using clock = std::chrono::steady_clock;

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

// Runs `ids` in as many processes as it takes; fills in `tests`.
class batch_runner {
public:
    batch_runner(const run_options& options, std::map<std::string, graded_test*>& tests)
        : options_(options), tests_(tests) {}

    void run(std::vector<std::string> remaining) {
        while (!remaining.empty()) {
            const auto log = options_.log_dir / fmt::format("run-{}.log", ++round_);
            child_process child({{options_.tests_program.string(),
                                  "--gtest_filter=" + fmt::format("{}", fmt::join(remaining, ":")),
                                  fmt::format("--seed={}", options_.seed)},
                                 {{course::testing::events_fd_variable, std::to_string(child_process::events_fd)},
                                  {"GTEST_COLOR", "no"}},
                                 log,
                                 true,
                                 std::nullopt});
            if (!run_one_process(child, log, remaining)) break;
        }
    }

private:
    // One process: returns false when nothing more can be learnt from retrying.
    bool run_one_process(child_process& child, const std::filesystem::path& log,
                         std::vector<std::string>& remaining) {
        std::string current;
        bool progressed = false;
        auto deadline = clock::now() + options_.per_test_limit;
        auto finish = [&](const std::string& id, test_status status, std::vector<std::string> messages, double ms) {
            if (auto it = tests_.find(id); it != tests_.end()) {
                it->second->status = status;
                it->second->messages = std::move(messages);
                it->second->ms = ms;
            }
            remaining.erase(std::remove(remaining.begin(), remaining.end(), id), remaining.end());
            progressed = true;
        };

        for (;;) {
            bool ended = false;
            const auto line = child.next_event(deadline, ended);
            if (line) {
                const json event = json::parse(*line, nullptr, false);
                if (event.is_discarded()) continue;
                const std::string kind = event.value("event", "");
                if (kind == "start") {
                    current = event.value("test", "");
                    start_ = clock::now();
                } else if (kind == "end") {
                    std::vector<std::string> messages;
                    for (const auto& m : event.value("messages", json::array()))
                        messages.push_back(clean_message(m.get<std::string>()));
                    const std::string s = event.value("status", "failed");
                    finish(event.value("test", ""),
                           s == "passed" ? test_status::passed
                           : s == "skipped" ? test_status::skipped
                                            : test_status::failed,
                           messages, event.value("ms", 0.0));
                    current.clear();
                }
                deadline = clock::now() + options_.per_test_limit;
                continue;
            }
            if (ended) {
                const exit_status status = child.wait();
                if (!current.empty()) {
                    std::vector<std::string> messages{
                        fmt::format("the test program crashed during this test: {}", status.describe())};
                    if (const std::string tail = indent_tail(log); !tail.empty()) messages.push_back(tail);
                    finish(current, test_status::crashed, messages, elapsed_ms());
                } else if (!remaining.empty() && !progressed) {
                    mark_missing(remaining, fmt::format("the test program ended ({}) without running this test",
                                                        status.describe()) + "\n" + indent_tail(log));
                    return false;
                }
                return true;
            }
            // The deadline passed.
            child.kill();
            child.wait();
            if (current.empty()) {
                mark_missing(remaining, fmt::format("the test program did not start this test within {} s",
                                                    options_.per_test_limit.count() / 1000));
                return false;
            }
            finish(current, test_status::timed_out,
                   {fmt::format("stopped after {} s: the test did not finish.",
                                options_.per_test_limit.count() / 1000),
                    "A kernel that never ends looks like this: a loop whose condition never "
                    "changes, or a __syncthreads() that not every thread of the block reaches."},
                   elapsed_ms());
            return true;
        }
    }

    void mark_missing(std::vector<std::string>& remaining, const std::string& why) {
        for (const auto& id : remaining) {
            if (auto it = tests_.find(id); it != tests_.end()) {
                it->second->status = test_status::missing;
                it->second->messages = {why};
            }
        }
        remaining.clear();
    }

    double elapsed_ms() const {
        return std::chrono::duration<double, std::milli>(clock::now() - start_).count();
    }

    const run_options& options_;
    std::map<std::string, graded_test*>& tests_;
    clock::time_point start_ = clock::now();
    int round_ = 0;
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}
}  // namespace

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
        tests.push_back({t.at("id"), t.at("title"), t.at("kind"), t.at("points"), t.at("gpu")});
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

std::vector<graded_test> run_graded_tests(const run_options& options) {
    std::filesystem::create_directories(options.log_dir);
    std::vector<graded_test> tests;
    for (const auto& t : list_graded_tests(options.tests_program, options.log_dir)) {
        if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), t.id) == options.only.end())
            continue;
        graded_test g;
        g.id = t.id;
        g.title = t.title;
        g.points = t.points;
        g.performance = t.kind == "performance";
        g.gpu = t.gpu;
        tests.push_back(g);
    }
    std::map<std::string, graded_test*> by_id;
    std::vector<std::string> correctness, performance;
    for (auto& t : tests) {
        by_id[t.id] = &t;
        (t.performance ? performance : correctness).push_back(t.id);
    }

    batch_runner runner(options, by_id);
    runner.run(correctness);

    // Speed is only worth grading once the answers are right.
    const bool all_right = std::all_of(tests.begin(), tests.end(), [](const graded_test& t) {
        return t.performance || t.status == test_status::passed;
    });
    const auto skipped = std::find_if(tests.begin(), tests.end(), [](const graded_test& t) {
        return t.status == test_status::skipped;
    });
    if (all_right) {
        runner.run(performance);
    } else {
        for (const auto& id : performance) {
            if (skipped != tests.end()) {
                by_id[id]->status = test_status::skipped;
                by_id[id]->messages = skipped->messages;
            } else {
                by_id[id]->status = test_status::not_run;
                by_id[id]->messages = {"needs correctness first"};
            }
        }
    }
    return tests;
}

}  // namespace grader
