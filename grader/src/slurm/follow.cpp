#include "slurm/follow.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <thread>

#include "report/progress_bar.hpp"
#include "system/atomic_file.hpp"

namespace grader {

namespace {

using clock = std::chrono::steady_clock;

bool runs_in(const slurm_job_record::submitted_job& job, int index) {
    return std::find(job.tasks.begin(), job.tasks.end(), index) != job.tasks.end();
}

bool has_ended(const chunk_end& chunk) { return verdict_of(chunk.task.state) != task_verdict::waiting; }

// Every chunk's last run as Slurm sees it now. A task Slurm does not list
// is pending when its job is still queued (just submitted), and otherwise
// forgotten: it ended, but the controller no longer remembers how and there
// is no accounting to ask (an empty state, which counts as killed).
std::vector<chunk_end> observe(const slurm_job_record& record, slurm_commands& slurm) {
    std::map<std::string, std::vector<slurm_task>> tasks_of;
    for (const auto& job : record.jobs) tasks_of[job.id] = slurm.array_task_states(job.id);
    std::map<std::string, bool> queued;
    std::vector<chunk_end> chunks;
    for (int index = 0; index < static_cast<int>(record.chunks.size()); ++index) {
        chunk_end chunk{index, "", {}, 0};
        for (const auto& job : record.jobs)
            if (runs_in(job, index)) {
                chunk.job_id = job.id;
                ++chunk.runs;
            }
        const auto& tasks = tasks_of[chunk.job_id];
        const auto found = std::find_if(tasks.begin(), tasks.end(), [&](const auto& t) { return t.index == index; });
        if (found != tasks.end()) {
            chunk.task = *found;
        } else {
            if (!queued.count(chunk.job_id)) queued[chunk.job_id] = slurm.queued(chunk.job_id);
            chunk.task.index = index;
            chunk.task.state = queued[chunk.job_id] ? "PENDING" : "";
        }
        chunks.push_back(chunk);
    }
    return chunks;
}

int new_results_in(const slurm_job_record& record, const result_cache& cache, const std::vector<std::string>& students) {
    return static_cast<int>(std::count_if(students.begin(), students.end(),
                                          [&](const auto& s) { return has_new_result(record, cache, s); }));
}

// "tasks: 1 done, 1 running, 1 pending (Resources), 1 killed"
std::string task_counts(const std::vector<chunk_end>& chunks) {
    int done = 0, running = 0, pending = 0, ended_badly = 0;
    std::string pending_reason;
    for (const auto& chunk : chunks) {
        const auto& state = chunk.task.state;
        if (state == "PENDING") {
            ++pending;
            if (pending_reason.empty() && !chunk.task.reason.empty() && chunk.task.reason != "None")
                pending_reason = chunk.task.reason;
        } else if (verdict_of(state) == task_verdict::waiting) {
            ++running;
        } else if (verdict_of(state) == task_verdict::done) {
            ++done;
        } else {
            ++ended_badly;
        }
    }
    std::string text = fmt::format("tasks: {} done, {} running, {} pending", done, running, pending);
    if (!pending_reason.empty()) text += " (" + pending_reason + ")";
    if (ended_badly > 0) text += fmt::format(", {} ended badly", ended_badly);
    return text;
}

// The chunks Slurm killed (or forgot) in their first run while some of
// their submissions still have no result: worth exactly one more run.
std::vector<int> chunks_to_run_again(const slurm_job_record& record, const result_cache& cache,
                                     const std::vector<chunk_end>& chunks) {
    std::vector<int> again;
    for (const auto& chunk : chunks) {
        if (chunk.runs > 1 || verdict_of(chunk.task.state) != task_verdict::killed) continue;
        const auto& students = record.chunks[chunk.index];
        if (new_results_in(record, cache, students) < static_cast<int>(students.size())) again.push_back(chunk.index);
    }
    return again;
}

// Submits `indices` again as a job of their own, from the first job's
// script with just those indices, and records it.
void run_again(slurm_job_record& record, slurm_commands& slurm, const std::vector<chunk_end>& chunks,
               const std::vector<int>& indices) {
    slurm_job_spec spec = record.spec;
    spec.array_indices = indices;
    // What the first run graded stays graded: a rerun never regrades it, even
    // when the first run was told to (--force).
    spec.task_command.erase(std::remove(spec.task_command.begin(), spec.task_command.end(), "--force"),
                            spec.task_command.end());
    const std::string first_job = record.jobs.front().id;
    spec.made_by = fmt::format("grader batch, running again the tasks of job {} that Slurm killed", first_job);
    const fs::path script = record.out / "slurm" / fmt::format("rerun-{}.sbatch", first_job);
    write_file_atomically(script, slurm_batch_script(spec));
    for (int index : indices) {
        const slurm_task& task = chunks[index].task;
        std::cout << fmt::format("task {}_{}: {}; running it again\n", chunks[index].job_id, index,
                                 task.state.empty() ? "ended, and Slurm no longer remembers how" : describe_end(task));
    }
    const std::string id = slurm.submit(script);
    record.jobs.push_back({id, indices, script});
    save_slurm_job_record(record);
    std::cout << fmt::format("submitted job {}: task(s) {} again ({})\n", id, fmt::join(indices, ","),
                             script.string())
              << std::flush;
}

// Sleeps `duration`, waking early when `stop` is set.
void wait_for(std::chrono::milliseconds duration, const std::atomic<bool>& stop) {
    const auto until = clock::now() + duration;
    while (!stop && clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

}  // namespace

bool has_new_result(const slurm_job_record& record, const result_cache& cache, const std::string& student) {
    const auto written = cache.written_at(student);
    if (!written) return false;
    const auto before = record.results_before.find(student);
    return before == record.results_before.end() || written->time_since_epoch().count() != before->second;
}

follow_outcome follow_slurm_job(slurm_job_record& record, slurm_commands& slurm, const result_cache& cache,
                                const std::atomic<bool>& stop, std::chrono::milliseconds poll_every) {
    std::vector<std::string> students;
    for (const auto& chunk : record.chunks) students.insert(students.end(), chunk.begin(), chunk.end());
    const auto started = clock::now();
    progress_bar bar(record.lesson, static_cast<int>(students.size()), stderr, "submissions in the Slurm job");
    std::string last_line;
    for (;;) {
        const std::vector<chunk_end> chunks = observe(record, slurm);
        const int graded = new_results_in(record, cache, students);
        const std::string line = fmt::format("{} · {}/{} submissions graded", task_counts(chunks), graded,
                                             students.size());
        const double elapsed = std::chrono::duration<double>(clock::now() - started).count();
        bar.update(graded, fmt::format("{} · {}", task_counts(chunks), minutes_and_seconds(elapsed)));
        // In a log, a line each time something changed instead of a bar.
        if (!bar.on_terminal() && line != last_line)
            std::cerr << fmt::format("{}: {} ({})\n", record.lesson, line, minutes_and_seconds(elapsed));
        last_line = line;

        if (std::all_of(chunks.begin(), chunks.end(), has_ended)) {
            const std::vector<int> again = chunks_to_run_again(record, cache, chunks);
            if (again.empty()) return {false, chunks};
            run_again(record, slurm, chunks, again);
            continue;
        }
        wait_for(poll_every, stop);
        if (stop) return {true, {}};
    }
}

}  // namespace grader
