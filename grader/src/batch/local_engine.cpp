#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "batch/engine.hpp"
#include "batch/explanation_queue.hpp"
#include "batch/result_cache.hpp"
#include "system/process.hpp"

// The local engine of `grader batch` (engine.hpp's run_local_engine): builder
// threads compile the submissions; on each GPU, graders judge them (the
// verdicts) and explainers explain their failures (sanitizer reruns, profiles),
// all through the GPU's gate (run/gpu_gate.hpp).
namespace grader {

namespace {
using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point start) {
    return std::chrono::duration<double>(clock::now() - start).count();
}

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "localhost";
    return name;
}

// Where one submission's grading time went (`grader run --timings`' table,
// from the batch's start): logs/<student>.timings.txt. It is what shows why
// one submission took long, where the timeline shows only that it did. Not
// being able to write it costs only the table.
void keep_timings(const fs::path& logs_dir, const std::string& student, const step_timings& timings) {
    if (logs_dir.empty()) return;
    std::error_code ec;
    fs::create_directories(logs_dir, ec);
    std::ofstream(logs_dir / (folder_name_for(student) + ".timings.txt")) << timings.format();
}

// A submission that built (or did not), waiting for a grader.
struct built_submission {
    const batch_job* job = nullptr;
    fs::path scratch;
    build_result build;
    double build_s = 0;
};

// What a submission that does not compile scores: every test, failed, with
// the compiler's first error; the student sees what `grader run` would print.
batch_result build_failure(const lesson_info& lesson, const batch_job& job, const build_result& build,
                           const std::vector<listed_test>& tests) {
    batch_result result;
    result.student = job.work->student;
    result.build_failed = true;
    result.build_error = compile_failure_text(lesson, build);
    lesson_report report;
    report.lesson_id = lesson.id;
    report.title = lesson.title;
    report.variant = "submission";
    for (const auto& t : tests) {
        graded_test g = not_yet_run(t);
        g.status = test_status::failed;
        g.messages = {"the code did not compile: " + build.digest};
        report.tests.push_back(std::move(g));
    }
    result.report = std::move(report);
    return result;
}

void add_submitter(batch_result& result, const submission& work) {
    result.problems = work.problems;
    if (!work.submitters.empty()) {
        result.email = work.submitters.front().email;
        result.sid = work.submitters.front().sid;
    }
}

// Built submissions, handed from the builders to the graders. Bounded, so
// the builders do not fill the disk with programs nobody grades yet.
class handover {
public:
    explicit handover(std::size_t capacity) : capacity_(capacity) {}
    void put(built_submission item) {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return queue_.size() < capacity_; });
        queue_.push_back(std::move(item));
        ready_.notify_one();
    }
    std::optional<built_submission> take() {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !queue_.empty() || closed_; });
        if (queue_.empty()) return std::nullopt;
        built_submission item = std::move(queue_.front());
        queue_.pop_front();
        room_.notify_one();
        return item;
    }
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        ready_.notify_all();
    }

private:
    std::size_t capacity_;
    std::mutex mutex_;
    std::condition_variable ready_, room_;
    std::deque<built_submission> queue_;
    bool closed_ = false;
};

// A submission whose verdicts are in and whose failures are still to be
// explained (compute-sanitizer's reruns, Nsight Compute's profiles).
struct judged_submission {
    built_submission built;
    program_grading grading;
    double judge_s = 0;
    std::unique_ptr<step_timings> timings;  // the grading's own, which it points to
};

using explanations_waiting = explanation_queue<judged_submission>;

// One batch on this machine: the threads' shared state, and what each kind
// of thread does.
class local_engine {
public:
    local_engine(const manifest& m, const lesson_info& lesson, const submission_recipe& recipe,
                 const std::vector<batch_job>& jobs, const engine_settings& settings,
                 const std::function<void(const batch_job&, batch_result)>& on_result,
                 const std::function<void(const std::string&)>& on_progress, const std::atomic<bool>& stop);
    engine_stats run();

private:
    void report_progress(const std::string& event) {
        if (on_progress_) on_progress_(event);
    }
    void build_all();
    void finish(const built_submission& item, batch_result result, const gpu_slot* gpu, double grade_s,
                double evidence_s, const step_timings* timings);
    void explain_and_finish(judged_submission judged, const gpu_slot* gpu, work_places* places);
    void grade_on(std::size_t g, const gpu_slot* gpu, gpu_gate* gate, work_places* places,
                  explanations_waiting& later);
    void explain_on(const gpu_slot* gpu, work_places* places, explanations_waiting& later);

    const manifest& m_;
    const lesson_info& lesson_;
    const submission_recipe& recipe_;
    const std::vector<batch_job>& jobs_;
    const engine_settings& settings_;
    const std::function<void(const batch_job&, batch_result)>& on_result_;
    const std::function<void(const std::string&)>& on_progress_;
    const std::atomic<bool>& stop_;

    const clock::time_point started_ = clock::now();
    engine_stats stats_;
    batch_timeline timeline_{started_};
    std::mutex stats_mutex_;  // also makes on_result and on_progress one call at a time
    std::string storing_failed_;  // guarded by stats_mutex_
    // The skeleton stands in for a file a submission lacks (its problems say so).
    std::map<std::string, std::string> skeleton_;
    const std::size_t slots_ = std::max<std::size_t>(1, settings_.gpus.size());
    const int graders_per_gpu_ = std::max(1, settings_.graders_per_gpu);
    handover built_{static_cast<std::size_t>(slots_ * graders_per_gpu_ + settings_.builders)};
    std::atomic<std::size_t> next_job_{0};
    // Once nothing is left to judge, each judging place of a GPU becomes one
    // more place to explain (handed over once, by the first thread of its
    // GPU that finds nothing left): the explanations still to come are then
    // all there is to wait for, and reruns in parallel scale (on an H200, ten
    // memcheck reruns of a small lesson01 test at once took 2.2 s, one alone
    // 0.55 s).
    std::vector<std::unique_ptr<std::atomic<int>>> handed_over_;
    std::vector<std::unique_ptr<work_places>> judging_places_, explaining_places_;
};

local_engine::local_engine(const manifest& m, const lesson_info& lesson, const submission_recipe& recipe,
                           const std::vector<batch_job>& jobs, const engine_settings& settings,
                           const std::function<void(const batch_job&, batch_result)>& on_result,
                           const std::function<void(const std::string&)>& on_progress,
                           const std::atomic<bool>& stop)
    : m_(m), lesson_(lesson), recipe_(recipe), jobs_(jobs), settings_(settings), on_result_(on_result),
      on_progress_(on_progress), stop_(stop) {
    stats_.started_unix =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (const variant_info* exercise = lesson.variant("exercise"))
        for (const auto& name : lesson.sources) skeleton_[name] = file_text(exercise->source_dir / name);
}

void local_engine::build_all() {
    for (;;) {
        {
            std::lock_guard lock(stats_mutex_);
            if (!storing_failed_.empty()) return;
        }
        if (stop_) return;
        const std::size_t i = next_job_++;
        if (i >= jobs_.size()) return;
        const batch_job& job = jobs_[i];
        built_submission item{&job, settings_.scratch_root / folder_name_for(job.work->student), {}, 0};
        std::error_code ec;
        fs::remove_all(item.scratch, ec);  // what a stopped batch left
        std::map<std::string, std::string> files = skeleton_;
        for (const auto& [name, content] : job.work->files) files[name] = content;
        {
            std::lock_guard lock(stats_mutex_);
            report_progress("building " + job.work->student);
        }
        const auto t0 = clock::now();
        try {
            item.build = build_submission(recipe_, item.scratch, files, settings_.bwrap, settings_.hidden,
                                          settings_.build);
        } catch (const std::exception& e) {
            item.build.ok = false;
            item.build.digest = std::string("the grader could not build it: ") + e.what();
        }
        item.build_s = seconds_since(t0);
        timeline_.record(job.work->student, "build", t0, clock::now());
        built_.put(std::move(item));
    }
}

// A graded (or not gradable) submission: its scratch folder goes, its result is stored.
void local_engine::finish(const built_submission& item, batch_result result, const gpu_slot* gpu, double grade_s,
                          double evidence_s, const step_timings* timings) {
    const batch_job& job = *item.job;
    if (timings) keep_timings(settings_.logs_dir, job.work->student, *timings);
    result.worker = gpu ? fmt::format("{} GPU {}", host_name(), gpu->id) : host_name();
    result.sandboxed = settings_.bwrap.has_value();
    add_submitter(result, *job.work);
    if (!settings_.keep_scratch) {
        std::error_code ec;
        fs::remove_all(item.scratch, ec);
    }
    std::lock_guard lock(stats_mutex_);
    stats_.build_s += item.build_s;
    stats_.grade_s += grade_s;
    stats_.evidence_s += evidence_s;
    ++stats_.graded;
    try {
        on_result_(job, std::move(result));
    } catch (const std::exception& e) {
        // The results could not be stored (a full disk, say): grading on would lose more.
        if (storing_failed_.empty()) storing_failed_ = e.what();
        return;
    }
    report_progress("graded " + job.work->student);
}

void local_engine::explain_and_finish(judged_submission judged, const gpu_slot* gpu, work_places* places) {
    {
        std::lock_guard lock(stats_mutex_);
        report_progress("explaining " + judged.built.job->work->student + "'s failures");
    }
    const auto t0 = clock::now();
    batch_result result;
    result.student = judged.built.job->work->student;
    try {
        judged.grading.explain(places);
        result.report = judged.grading.take_report();
    } catch (const std::exception& e) {
        result.not_graded = std::string("the grader could not run the tests: ") + e.what();
    }
    const double explain_s = seconds_since(t0);
    timeline_.record(result.student, "explain", t0, clock::now());
    finish(judged.built, std::move(result), gpu, judged.judge_s + explain_s, explain_s, judged.timings.get());
}

// Judges what the builders built, on GPU `g`: a submission with failures to
// explain goes to `later`, the others are stored at once.
void local_engine::grade_on(std::size_t g, const gpu_slot* gpu, gpu_gate* gate, work_places* places,
                            explanations_waiting& later) {
    for (;;) {
        work_place place(places);
        auto item = built_.take();
        if (!item) {
            if (places && handed_over_[g]->fetch_add(1) < graders_per_gpu_) explaining_places_[g]->add();
            return;
        }
        const batch_job& job = *item->job;
        const auto t0 = clock::now();
        batch_result result;
        result.student = job.work->student;
        std::unique_ptr<step_timings> timings;
        if (!item->build.ok && item->build.digest.rfind("the grader could not build it", 0) == 0) {
            result.not_graded = item->build.digest;
        } else if (!item->build.ok) {
            // The scratch folder goes; the log the report points to stays.
            const fs::path kept = settings_.logs_dir / (folder_name_for(job.work->student) + ".build.log");
            std::error_code ec;
            fs::copy_file(item->build.log, kept, fs::copy_options::overwrite_existing, ec);
            if (!ec) item->build.log = kept;
            result = build_failure(lesson_, job, item->build, settings_.graded_tests);
        } else {
            timings = std::make_unique<step_timings>(started_, "the batch's start");
            grade_options options = settings_.grading;
            options.timings = timings.get();
            options.gate = gate;
            options.places = places;
            if (gpu) {
                options.device = gpu->ordinal;
                options.device_id = gpu->id;
            }
            try {
                program_grading grading(m_, lesson_,
                                        {"submission", submission_program(item->scratch),
                                         submission_library(item->scratch), item->scratch / "logs"},
                                        options);
                grading.judge();
                timeline_.record(job.work->student, "judge", t0, clock::now());
                if (grading.has_failures_to_explain()) {
                    place.give_back();  // waiting for room to explain is no work
                    later.put({std::move(*item), std::move(grading), seconds_since(t0), std::move(timings)});
                    continue;
                }
                grading.explain();  // reruns nothing; notes as grade_program gives them
                result.report = grading.take_report();
            } catch (const std::exception& e) {
                result.not_graded = std::string("the grader could not run the tests: ") + e.what();
            }
        }
        finish(*item, std::move(result), gpu, seconds_since(t0), 0, timings.get());
    }
}

// Explains what this GPU's graders judged, as it comes. Once stopped
// (Ctrl-C), what waits is not stored: a rerun grades it again rather than
// the stop waiting for minutes of sanitizer reruns.
void local_engine::explain_on(const gpu_slot* gpu, work_places* places, explanations_waiting& later) {
    for (;;) {
        work_place place(places);
        auto judged = later.take();
        if (!judged) return;
        if (!stop_) {
            explain_and_finish(std::move(*judged), gpu, places);
        } else if (!settings_.keep_scratch) {
            std::error_code ec;
            fs::remove_all(judged->built.scratch, ec);
        }
    }
}

engine_stats local_engine::run() {
    for (std::size_t g = 0; g < slots_; ++g) handed_over_.push_back(std::make_unique<std::atomic<int>>(0));
    const process_pauser* pauser = settings_.pause_sharers ? driver_pauser() : nullptr;
    std::vector<std::unique_ptr<gpu_gate>> gates;
    for (std::size_t g = 0; g < slots_; ++g)
        gates.push_back(std::make_unique<gpu_gate>(gpu_gate::default_patience, pauser));
    // Each GPU's places to work: graders_per_gpu submissions judged and
    // explainers_per_gpu explained at once, not counting those waiting for
    // the GPU alone (work_places.hpp); enough threads for those to wait.
    for (std::size_t g = 0; g < slots_; ++g) {
        judging_places_.push_back(std::make_unique<work_places>(graders_per_gpu_));
        explaining_places_.push_back(std::make_unique<work_places>(explainers_per_gpu));
    }
    const bool lend = !settings_.gpus.empty();  // without a GPU nothing waits to be alone
    std::vector<std::unique_ptr<explanations_waiting>> waiting;
    for (std::size_t g = 0; g < slots_; ++g)
        waiting.push_back(std::make_unique<explanations_waiting>(
            explanations_waiting_per_grader * graders_per_gpu_,
            [](const judged_submission& j) { return j.grading.explaining_needs_the_gpu_alone(); },
            [](const judged_submission& j) { return j.grading.explaining_cost(); }));
    std::vector<std::thread> builders;
    for (int b = 0; b < std::max(1, settings_.builders); ++b) builders.emplace_back([this] { build_all(); });
    const int threads_per_place = lend ? threads_per_work_place : 1;
    std::vector<std::thread> grading;
    for (std::size_t g = 0; g < slots_; ++g)
        for (int k = 0; k < graders_per_gpu_ * threads_per_place; ++k)
            grading.emplace_back([this, g, lend, &gates, &waiting] {
                grade_on(g, lend ? &settings_.gpus[g] : nullptr, lend ? gates[g].get() : nullptr,
                         lend ? judging_places_[g].get() : nullptr, *waiting[g]);
            });
    std::vector<std::thread> explaining;
    for (std::size_t g = 0; g < slots_; ++g)
        for (int k = 0; k < (explainers_per_gpu + graders_per_gpu_) * threads_per_place; ++k)
            explaining.emplace_back([this, g, lend, &waiting] {
                explain_on(lend ? &settings_.gpus[g] : nullptr, lend ? explaining_places_[g].get() : nullptr,
                           *waiting[g]);
            });
    for (auto& t : builders) t.join();
    built_.close();
    for (auto& t : grading) t.join();
    for (auto& queue : waiting) queue->close();
    for (auto& t : explaining) t.join();
    if (!storing_failed_.empty())
        throw user_error(usage_error, "the batch stopped: a result could not be stored (" + storing_failed_ +
                                          "); what was stored is kept, and a rerun resumes");

    std::vector<gate_span> gate_spans;
    stats_.pausing = pauser != nullptr && lend;
    for (const auto& gate : gates) {
        stats_.gpu_alone_s += gate->alone_seconds();
        stats_.gpu_shared_s += gate->shared_seconds();
        stats_.gpu_held_up_s += gate->held_up_seconds();
        stats_.paused_s += gate->paused_seconds();
        const auto spans = gate->spans();
        gate_spans.insert(gate_spans.end(), spans.begin(), spans.end());
    }
    stats_.timeline = timeline_.compose(gate_spans);
    stats_.wall_s = seconds_since(started_);
    return stats_;
}

}  // namespace

engine_stats run_local_engine(const manifest& m, const lesson_info& lesson, const submission_recipe& recipe,
                              const std::vector<batch_job>& jobs, const engine_settings& settings,
                              const std::function<void(const batch_job&, batch_result)>& on_result,
                              const std::function<void(const std::string&)>& on_progress,
                              const std::atomic<bool>& stop) {
    return local_engine(m, lesson, recipe, jobs, settings, on_result, on_progress, stop).run();
}

}  // namespace grader
