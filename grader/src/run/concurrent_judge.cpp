#include "run/concurrent_judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "course/testing/evidence.hpp"
#include "course/testing/harness.hpp"

namespace grader {

void write_word(const std::filesystem::path& file, const std::string& word) {
    const auto partial = file.string() + ".partial";
    std::ofstream(partial) << word;
    std::filesystem::rename(partial, file);
}

concurrent_judge::concurrent_judge(const run_options& options, const std::vector<std::string>& first,
                                   const std::vector<std::string>& then, const std::string& log_prefix)
    : options_(options), ids_(first) {
    ids_.insert(ids_.end(), then.begin(), then.end());
    // The judge may wait a whole test of the student's before judging it.
    const auto limit = 2 * options.per_test_limit + options.judge_extra_time;
    // The judge opens one hardware queue (one_hardware_queue_env): every
    // graded run starts one, and its verdicts never depend on work of
    // different streams running side by side. A verdict of stream order
    // compares what the student's program recorded with the inputs
    // (stream_order.cpp); the judge's own calls only stand in for it. A timed
    // replay queues every call on one stream behind a hold (replayed_calls.hpp),
    // as does a yardstick. What one queue changes: where a forged pass of a
    // test of stream order is replayed with the mistake made on purpose, the
    // replay's call waits behind the hold as well and gives the right output,
    // so the failure says the output was wrong without naming the stream.
    auto env = grader_words_env(claims_dir(options), options.per_test_limit);
    env.push_back(one_hardware_queue_env);
    judge_ = std::make_unique<test_processes>(options, options.judge_program, "judge", log_prefix, limit,
                                              std::move(env));
    // Outside a batch, and only where the judge is the course's solution
    // (also where it grades the solution itself, `--solution`): a practice
    // grade's judge is the student's program (grade.cpp), which the grader
    // must not leave running behind it.
    if (!options.gate && !options.judge_is_the_students_program) judge_->let_the_last_exit_go();
    judge_->on_start([this](const std::string& id) {
        std::lock_guard lock(mutex_);
        judging_ = id;
        changed_.notify_all();
    });
    thread_ = std::thread([this, first, then] {
        judge_->run(
            first,
            [this](const std::string& id, const outcome& verdict) {
                std::lock_guard lock(mutex_);
                verdicts_[id] = verdict;
                judging_.clear();
                changed_.notify_all();
            },
            then);
        std::lock_guard lock(mutex_);
        done_ = true;
        changed_.notify_all();
    });
}
void concurrent_judge::claim(const std::string& id, test_status status) {
    {
        std::lock_guard lock(mutex_);
        if (!claimed_.insert(id).second) return;
        if (status == test_status::passed) passes_.push_back(id);
    }
    write_word(claim_word(options_, course::testing::evidence_file_name(id)), to_string(status));
}

void concurrent_judge::wait_idle(const std::string& timed) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] {
        return idle() || (!judging_.empty() && judging_ != timed && claimed_.count(judging_) == 0);
    });
}

void concurrent_judge::wait_judged(const std::string& id) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] {
        return done_ || verdicts_.count(id) > 0 || (!judging_.empty() && judging_ != id && claimed_.count(judging_) == 0);
    });
}

bool concurrent_judge::wait_idle_for(std::chrono::milliseconds patience) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, patience, [&] { return idle(); });
}

bool concurrent_judge::idle() const {
    return done_ ||
           std::all_of(passes_.begin(), passes_.end(), [&](const std::string& id) { return verdicts_.count(id) > 0; });
}

outcome concurrent_judge::verdict(const std::string& id) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return done_ || verdicts_.count(id) > 0; });
    if (auto it = verdicts_.find(id); it != verdicts_.end()) return it->second;
    return {test_status::missing, {"the judge never reported this test"}, 0};
}

void settle(graded_test& t, const outcome& said, concurrent_judge& judge) {
    t.status = said.status;
    t.messages = said.messages;
    t.ms = said.ms;
    t.explained_beyond_the_tools = said.explained_beyond_the_tools;
    if (said.status != test_status::passed) return;
    const outcome verdict = judge.verdict(t.id);
    // Only the judge's figure is kept: the student's program could say any.
    t.figure = verdict.figure;
    if (verdict.status == test_status::passed) return;
    t.status = test_status::failed;
    t.messages.clear();
    if (!said.left_to_judge)
        t.messages.push_back("the test program said this test passed, but its recorded results do not pass it:");
    if (verdict.status != test_status::failed)
        t.messages.push_back(fmt::format("(the judge could not check them: it {})", to_string(verdict.status)));
    t.messages.insert(t.messages.end(), verdict.messages.begin(), verdict.messages.end());
    // The judge's words: its failures are all there is.
    t.explained_beyond_the_tools = verdict.status == test_status::failed && said.left_to_judge &&
                                   verdict.explained_beyond_the_tools;
}

void note_ignored_events(concurrent_judge& judge, std::vector<std::string>& notes) {
    if (const int ignored = judge.ignored_events(); ignored > 0)
        notes.push_back(fmt::format("the judge wrote {} event line(s) that were ignored", ignored));
}

}  // namespace grader
