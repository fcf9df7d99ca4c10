#pragma once
// Claims and the judge: the grader's word on each test the student's
// program ended, and the judge's verdict on each claimed pass.
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "report/report.hpp"
#include "run/run_options.hpp"
#include "run/test_events.hpp"
#include "run/test_processes.hpp"

namespace grader {

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
                     const std::vector<std::string>& then, const std::string& log_prefix = "judge");
    ~concurrent_judge() { finish(); }

    // Claims what was never claimed (nothing left to wait for) and waits for the judge to end.
    void finish() {
        for (const auto& id : ids_) claim(id, test_status::not_run);
        if (thread_.joinable()) thread_.join();
    }

    // Written once per test, so the judge never reads half a claim.
    void claim(const std::string& id, test_status status);

    // Waits until the judge has a verdict on every pass claimed so far: it is
    // idle. Before the test `timed` is timed: the judge also counts as idle
    // where it waits for the claim of another test, one the student's program
    // has not ended (its events came out of the order of the tests: forged).
    // That claim comes only once the grader goes on, and the judge, waiting,
    // does no GPU work (a batch once held a forged run's share 60 s so).
    void wait_idle(const std::string& timed);
    // The same for at most `patience`: whether it is idle.
    bool wait_idle_for(std::chrono::milliseconds patience);

    // Waits until the judge has judged `id` (claimed a moment ago), or has
    // stopped, or waits for the claim of another test, one the student's
    // program has not ended (forged events, as for wait_idle): that claim
    // comes only once the grader goes on, so it is not waited for.
    void wait_judged(const std::string& id);

    // The judge's verdict on `id`, once it has one (or has stopped).
    outcome verdict(const std::string& id);

    // Once the student's side is done: what the judge wrote that was not taken.
    int ignored_events() {
        finish();
        return judge_->ignored_events();
    }

private:
    bool idle() const;  // a verdict on every claimed pass (mutex held)

    const run_options& options_;
    std::vector<std::string> ids_;
    std::unique_ptr<test_processes> judge_;
    std::set<std::string> claimed_;
    std::vector<std::string> passes_;  // claimed passes, which the judge will judge
    std::string judging_;  // the test the judge is in; empty between tests
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::string, outcome> verdicts_;
    bool done_ = false;
    std::thread thread_;
};

// Written atomically (a rename), so that the judge or the student's program,
// waiting for it, reads the whole word or no file: claims, "go", "alone".
void write_word(const std::filesystem::path& file, const std::string& word);

// The student's claim, and, for a claimed pass, the judge's verdict: the test's result.
void settle(graded_test& t, const outcome& said, concurrent_judge& judge);

// Once the student's side is done, a note of the judge's event lines that were not taken.
void note_ignored_events(concurrent_judge& judge, std::vector<std::string>& notes);

}  // namespace grader
