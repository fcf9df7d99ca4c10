#include "slurm/engine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <iostream>
#include <random>
#include <utility>

#include "batch/engine.hpp"
#include "batch/measured_grading.hpp"
#include "batch/memory_size.hpp"
#include "batch/outputs.hpp"
#include "batch/selection.hpp"
#include "batch/similarity_report.hpp"
#include "batch/submission_build.hpp"
#include "checkout/architectures.hpp"
#include "checkout/context.hpp"
#include "checkout/course_commit.hpp"
#include "run/grading_needs.hpp"
#include "run/runner.hpp"
#include "run/sandbox.hpp"
#include "slurm/follow.hpp"
#include "slurm/job_record.hpp"
#include "slurm/jobs.hpp"
#include "slurm/task_refusal.hpp"
#include "system/atomic_file.hpp"
#include "system/process.hpp"

namespace grader {

namespace {

std::atomic<bool> stop_following{false};

// Ctrl-C stops only the following: the job is Slurm's, and keeps running.
void on_interrupt(int) { stop_following = true; }

fs::path this_program() { return fs::canonical("/proc/self/exe"); }

// The students still to grade, cut into nearly equal contiguous chunks of
// at most `chunk_size`: chunk I is exactly what `--chunk I/N` takes of the
// same list in the task (chunk_range on both sides).
std::vector<std::vector<std::string>> cut_into_chunks(const std::vector<std::string>& students,
                                                      std::size_t chunk_size) {
    const std::size_t count = (students.size() + chunk_size - 1) / chunk_size;
    std::vector<std::vector<std::string>> chunks;
    for (std::size_t i = 0; i < count; ++i) {
        const auto [first, last] = chunk_range(fmt::format("{}/{}", i, count), students.size());
        chunks.emplace_back(students.begin() + static_cast<long>(first), students.begin() + static_cast<long>(last));
    }
    return chunks;
}

// What each array task runs: the embedded engine on its chunk, with what
// the submitter already did left out (--no-build: the course is built on
// the shared storage; --no-report: the submitter writes the gradebook once
// every chunk is in). One seed for the whole class.
std::vector<std::string> task_command(const batch_class& klass, const batch_args& args, const fs::path& student_list,
                                      std::size_t chunks, unsigned long long seed) {
    std::vector<std::string> command{this_program().string(),
                                     "--build-dir", klass.course.build_dir.string(),
                                     "batch", klass.lesson.id, klass.submissions_path.string(),
                                     "-o", klass.out.string(),
                                     "--kind", args.kind,
                                     "--only-students", student_list.string(),
                                     "--chunk", fmt::format("{}/{}", slurm_task_token, chunks),
                                     "--scratch", std::string(slurm_scratch_token),
                                     "--no-build", "--no-report",
                                     "--seed", std::to_string(seed),
                                     "--timeout", std::to_string(args.timeout_s),
                                     "--build-timeout", std::to_string(args.build_timeout_s),
                                     "--memory", args.memory,
                                     "--jobs", std::to_string(args.slurm.cpus_per_task)};
    // Unless asked, each task's grader picks from the CPUs Slurm gave it.
    if (args.per_gpu > 0) command.insert(command.end(), {"--per-gpu", std::to_string(args.per_gpu)});
    if (args.force) command.push_back("--force");
    if (args.pause_sharers) command.push_back("--pause");
    // Each task's batch checks the sandbox and its node's GPUs itself (and
    // refuses where either fails); --no-sandbox is the instructor's to give.
    if (args.no_sandbox) command.push_back("--no-sandbox");
    return command;
}

// The login node is not the GPU nodes: bubblewrap may run on them and not
// here. Each task refuses where it cannot run; this only warns.
void warn_if_no_sandbox_here(const batch_args& args) {
    if (args.no_sandbox) {
        std::cout << "WARNING: NOT SANDBOXED (--no-sandbox): in every task, students' code runs with your rights "
                     "and can read the reference solutions and each other's files; every report, the gradebook and "
                     "the class report say so\n";
        return;
    }
    const bubblewrap_search found = search_bubblewrap();
    if (!found.bwrap)
        std::cout << fmt::format("WARNING: {} on this machine. Each task checks on its own node and grades nothing "
                                 "where bubblewrap cannot run there either (its submissions are then \"not graded\", "
                                 "with the reason): the nodes need it installed and allowed to create user "
                                 "namespaces, or pass --no-sandbox to grade without it, knowing that students' "
                                 "code then runs with your rights\n",
                                 found.problem);
}

// The GPUs the tasks will run on, against the build's architectures
// (checkout/architectures.hpp), before anything is submitted: the declared
// ones (--gpu-arch), else the models sinfo names for the partition. Known
// and not in the build: refused. Unknown: a warning, where the build leaves
// out a GPU generation (each task checks its node's GPUs again and refuses).
void check_partition_gpus(const batch_class& klass, const batch_args& args, slurm_commands& slurm) {
    if (args.slurm.gpus_per_task == 0) return;  // no GPU asked for: the GPU tests cannot run anywhere
    const manifest& m = klass.course;
    const std::string partition = args.slurm.partition.empty() ? "the default partition" : "partition " + args.slurm.partition;
    std::vector<std::pair<std::string, int>> known;  // where sinfo named the model: its words, its architecture
    std::vector<std::string> unknown;
    const std::vector<int> declared = declared_gpu_architectures(args.gpu_archs);
    if (declared.empty()) {
        const std::optional<std::string> gres = slurm.generic_resources(args.slurm.partition);
        if (!gres) {
            unknown.push_back("sinfo did not answer");
        } else {
            const std::vector<std::string> types = parse_sinfo_gpu_types(*gres);
            if (types.empty()) unknown.push_back(fmt::format("sinfo lists no GPU in {}", partition));
            for (const auto& type : types) {
                if (const auto cc = compute_capability_of_gpu_type(type))
                    known.emplace_back(fmt::format("gpu:{}, sinfo's GPU type in {}", type, partition), *cc);
                else
                    unknown.push_back(type.empty() ? "a GPU with no type (gpu:N)" : fmt::format("gpu:{}", type));
            }
        }
    }
    std::vector<std::string> problems;
    for (const auto& [words, cc] : known)
        if (std::string p = architecture_problem(m, cc, fmt::format("A node's GPU ({})", words)); !p.empty())
            problems.push_back(p);
    for (int cc : declared)
        if (std::string p = architecture_problem(m, cc, fmt::format("The GPU declared with --gpu-arch {}", sm_name(cc))); !p.empty())
            problems.push_back(p);
    if (!problems.empty())
        throw user_error(build_error, fmt::format("{}\nNothing was submitted.{}", fmt::join(problems, "\n"),
                                                  declared.empty() ? " If the job's own options keep it off those "
                                                                     "nodes (--sbatch-option=--constraint=...), say "
                                                                     "which GPUs it runs on with --gpu-arch sm_90"
                                                                   : ""));
    if (unknown.empty()) return;
    // Which GPU generations the build leaves out; none: nothing to warn of.
    std::vector<std::string> missing;
    for (int cc : {75, 80, 86, 89, 90, 100, 120})
        if (fit_of(m.cuda_architectures, cc) == gpu_fit::none) missing.push_back(sm_name(cc));
    if (missing.empty()) return;
    std::cout << fmt::format(
        "WARNING: which GPUs the tasks will get is not known here ({}), and the build in {} holds {}: on a node "
        "whose GPU is {} every GPU test would fail, so its task refuses to grade (its submissions \"not "
        "graded\"). Say which GPUs {} has with --gpu-arch (sm_80 for an A100, sm_89 an L4, sm_75 a T4; checked "
        "before submitting), or {}\n",
        fmt::join(unknown, "; "), m.build_dir.string(), describe_architectures(m.cuda_architectures),
        fmt::join(missing, " or "), partition, how_to_build_for_every_gpu(m));
}

// What the grader and its build lack (libelf, the GPU recorder,
// course-threads-only), every node lacks: refused before anything is
// submitted, as the embedded engine refuses. The nodes' own tools
// (bubblewrap, compute-sanitizer, ncu) and GPUs each task checks on its node
// before grading anyone; a task that refuses says why (slurm/task_refusal.hpp).
void refuse_without_what_the_build_needs(const batch_class& klass, const std::vector<listed_test>& tests,
                                         bool no_sandbox) {
    try {
        refuse_without_grading_needs(observe_grading_needs(&klass.course, grading_lookups::of_this_machine()), tests,
                                     /*gpus_here=*/false, no_sandbox);
    } catch (const grading_refused& refused) {
        throw grading_refused(refused.lacks, fmt::format("{}\nNothing was submitted: the grader and its build in {} "
                                                         "are the same on every node.",
                                                         refused.what(), klass.course.build_dir.string()));
    }
}

slurm_job_spec job_spec(const batch_class& klass, const batch_args& args, std::size_t largest_chunk,
                        std::size_t graded_tests,
                        const std::optional<measured_grading>& measured) {
    const slurm_batch_options& o = args.slurm;
    slurm_job_spec spec;
    spec.job_name = "grade-" + klass.lesson.id;
    spec.throttle = o.throttle;
    chunk_time_budget budget;
    budget.tests = static_cast<int>(graded_tests);
    budget.per_test = std::chrono::seconds(args.timeout_s);
    budget.submissions = static_cast<int>(largest_chunk);
    budget.build_per_submission = std::chrono::seconds(args.build_timeout_s);
    if (measured)
        budget.grading_per_submission =
            std::chrono::seconds(static_cast<long long>(std::ceil(seconds_per_submission(*measured, args.timeout_s))));
    spec.time_limit_minutes = o.time_limit_minutes > 0 ? o.time_limit_minutes : slurm_time_limit_minutes(budget);
    if (o.gpus_per_task > 0) spec.gres = fmt::format("gpu:{}", o.gpus_per_task);
    spec.cpus_per_task = o.cpus_per_task;
    // Room for every program the task runs at once, each within --memory
    // (unless the instructor asked for an amount with --sbatch-option).
    const bool memory_asked = std::any_of(o.sbatch_options.begin(), o.sbatch_options.end(), [](const std::string& x) {
        return x.rfind("--mem", 0) == 0;
    });
    if (!memory_asked) {
        task_memory_budget memory;
        memory.per_program_bytes = parse_memory(args.memory);
        const int gpus = std::max(1, o.gpus_per_task);
        memory.graders = (args.per_gpu > 0 ? args.per_gpu : graders_for(o.cpus_per_task, gpus)) * gpus;
        spec.memory = slurm_task_memory(memory);
    }
    spec.partition = o.partition;
    spec.account = o.account;
    spec.qos = o.qos;
    spec.extra_options = o.sbatch_options;
    spec.log_dir = klass.out / "slurm" / "logs";
    spec.shared_paths = {klass.course.source_dir, klass.course.build_dir, klass.submissions_path, klass.out};
    if (const fs::path grader = this_program();
        grader.lexically_relative(klass.course.build_dir).string().rfind("..", 0) == 0)
        spec.shared_paths.push_back(grader);  // a grader installed outside the build folder
    spec.made_by = fmt::format("grader batch {} {} --engine slurm", klass.lesson.id, klass.submissions_path.string());
    return spec;
}

// A task asking for more memory than any node of the partition has would
// never start (sbatch refuses it): it asks for the most a node has, and the
// instructor is told what the programs' limits would need.
void fit_memory_to_the_nodes(slurm_job_spec& spec, const batch_args& args, slurm_commands& slurm) {
    if (spec.memory.empty()) return;
    const auto listed = slurm.node_memory(args.slurm.partition);
    if (!listed) return;  // sinfo cannot tell (not here, or no controller): as computed
    const auto most_mib = parse_sinfo_largest_memory_mib(*listed);
    if (!most_mib) return;
    const long long wanted_mib = std::stoll(spec.memory) * 1024;  // slurm_task_memory writes whole GiB
    if (wanted_mib <= *most_mib) return;
    std::cout << fmt::format(
        "WARNING: every program of a task at its --memory limit ({}) needs {}, and the nodes of {} have at most "
        "{} MiB: each task asks for that. Lower --memory or --per-gpu for the limits to hold.\n",
        args.memory, spec.memory, args.slurm.partition.empty() ? "the default partition" : args.slurm.partition,
        *most_mib);
    spec.memory = fmt::format("{}M", *most_mib);
}

// Where the tasks' time limit came from, in words for the instructor.
std::string time_limit_source(const batch_class& klass, const batch_args& args, int minutes,
                              const std::optional<measured_grading>& measured) {
    if (args.slurm.time_limit_minutes > 0) return fmt::format("time limit {} min per task (--time-limit)", minutes);
    if (measured)
        return fmt::format(
            "time limit {} min per task: each submission's build limit ({} s) and {:.0f}x the slowest graded run "
            "that `grader verify {}` measured ({:.1f} s, {}, on {} on {}, with {} s a test), plus the task's setup",
            minutes, args.build_timeout_s, measured_grading_margin, klass.lesson.id, measured->slowest_s,
            measured->slowest, measured->gpu, measured->date, measured->timeout_s);
    return fmt::format(
        "time limit {} min per task: every test of every submission running to its {} s limit, as no time was "
        "measured; `grader verify {}` on a GPU node of the partition measures them (into {}), for a limit "
        "closer to what grading takes",
        minutes, args.timeout_s, klass.lesson.id,
        measured_grading_file(klass.course.build_dir, klass.lesson.id).parent_path().string());
}

// A second job over the same batch folder would grade the same students
// twice, at the same time, into the same folders.
void refuse_if_a_job_is_queued(const fs::path& out, slurm_commands& slurm) {
    const auto record = load_slurm_job_record(out);
    if (!record) return;
    for (const auto& job : record->jobs)
        if (slurm.queued(job.id))
            throw user_error(usage_error,
                             fmt::format("job {} still grades into {}: follow it with `grader batch collect {}`, "
                                         "or stop it with `scancel {}` before submitting again",
                                         job.id, out.string(), out.string(), job.id));
}

void say_how_to_collect(const slurm_job_record& record) {
    std::vector<std::string> ids;
    for (const auto& job : record.jobs) ids.push_back(job.id);
    std::cout << fmt::format(
        "job {0} goes on without this command. To gather its results later (and rerun what Slurm kills):\n"
        "  grader batch collect {1}\n"
        "To stop it: scancel {2}\n",
        fmt::join(ids, " and "), record.out.string(), fmt::join(ids, " "));
}

// The last line a task wrote (its error output first), to say why it failed.
std::string last_words_of(const slurm_job_record& record, const chunk_end& chunk) {
    constexpr std::size_t longest = 300;  // a gradebook note, not the log
    for (const char* extension : {".err", ".out"}) {
        const fs::path log = record.spec.log_dir / fmt::format("{}_{}{}", chunk.job_id, chunk.index, extension);
        std::string text = file_text(log);
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
        if (text.empty()) continue;
        std::string last = text.substr(text.rfind('\n') + 1);
        if (last.size() > longest) last = last.substr(0, longest) + "...";
        return fmt::format("its log {} ends: {}", log.string(), last);
    }
    return fmt::format("it left no log in {}", record.spec.log_dir.string());
}

// "task 12_3", or "tasks 12_3 and 14_3" when it was run again.
std::string task_names(const slurm_job_record& record, const chunk_end& chunk) {
    const std::string last = fmt::format("{}_{}", chunk.job_id, chunk.index);
    if (chunk.runs == 1) return "task " + last;
    return fmt::format("tasks {}_{} and {}", record.jobs.front().id, chunk.index, last);
}

// Why a chunk's submission has no result, for its gradebook note. Never a
// grade: the submission is graded again by the next run.
std::string why_not_graded(const slurm_job_record& record, const chunk_end& chunk) {
    const std::string tasks = task_names(record, chunk);
    if (chunk.task.state.empty())
        return fmt::format("infrastructure ({} ended, but Slurm no longer remembers how and keeps no accounting); {}",
                           tasks, last_words_of(record, chunk));
    switch (verdict_of(chunk.task.state)) {
        case task_verdict::killed:
            if (chunk.runs > 1) return fmt::format("infrastructure: {} in both runs ({})", describe_end(chunk.task), tasks);
            return fmt::format("infrastructure: {} {}", tasks, describe_end(chunk.task));
        case task_verdict::failed:
            if (const auto refusal = load_task_refusal(record.out, chunk.index))
                return fmt::format("{} refused to grade on {}: it lacks {} (the batch's output says the fix; "
                                   "`grader doctor --grading` there checks it all)",
                                   tasks, refusal->node, refusal->lacks);
            return fmt::format("the grader's command failed on the node ({}: {}, exit code {}); {}", tasks,
                               chunk.task.state, chunk.task.exit_code, last_words_of(record, chunk));
        default:
            return fmt::format("{} completed without a result for it; {}", tasks, last_words_of(record, chunk));
    }
}

void print_task_ends(const std::vector<chunk_end>& ends) {
    for (const auto& chunk : ends) {
        const auto& t = chunk.task;
        std::cout << fmt::format("  task {}_{}: {}{}{}{}\n", chunk.job_id, chunk.index,
                                 t.state.empty() ? "ended (forgotten by Slurm)" : t.state,
                                 t.node.empty() ? "" : " on " + t.node, t.elapsed.empty() ? "" : ", ran " + t.elapsed,
                                 chunk.runs > 1 ? " (second run)" : "");
    }
}

// The tasks that refused to grade on their node, each refusal once with the
// tasks and nodes that gave it; how many chunks refused.
std::size_t print_refusals(const slurm_job_record& record, const std::vector<chunk_end>& ends) {
    std::vector<std::pair<std::string, std::vector<std::string>>> by_message;  // in the order first met
    std::size_t refused = 0;
    for (const auto& chunk : ends) {
        if (verdict_of(chunk.task.state) != task_verdict::failed) continue;
        const auto refusal = load_task_refusal(record.out, chunk.index);
        if (!refusal) continue;
        ++refused;
        const std::string where = fmt::format("{}_{} on {}", chunk.job_id, chunk.index, refusal->node);
        auto same = std::find_if(by_message.begin(), by_message.end(),
                                 [&](const auto& m) { return m.first == refusal->message; });
        if (same == by_message.end()) by_message.push_back({refusal->message, {where}});
        else same->second.push_back(where);
    }
    for (const auto& [message, tasks] : by_message)
        std::cout << fmt::format("\n{} task(s) refused to grade ({}), so their submissions are not graded:\n{}\n",
                                 tasks.size(), fmt::join(tasks, ", "), message);
    return refused;
}

// Step 5: every student of the job has a result (the task's, or one saying
// why there is none), then the gradebook and class report for the class.
int finish(const slurm_job_record& record, const manifest& m, const lesson_info& lesson,
           const std::vector<chunk_end>& ends) {
    const result_cache cache(record.out / "students");
    std::cout << "\nSlurm's last word on each task:\n";
    print_task_ends(ends);
    const std::size_t refused = print_refusals(record, ends);
    for (const auto& chunk : ends)
        for (const auto& student : record.chunks[chunk.index]) {
            if (has_new_result(record, cache, student)) continue;
            batch_result result;
            result.student = student;
            result.not_graded = why_not_graded(record, chunk);
            if (const auto who = record.who.find(student); who != record.who.end()) {
                result.email = who->second.email;
                result.sid = who->second.sid;
                result.problems = who->second.problems;
            }
            cache.store(result, "");
            std::cout << fmt::format("{}: not graded: {}\n", student, result.not_graded);
        }

    std::vector<batch_result> results;
    for (const auto& student : record.students) {
        if (auto stored = cache.load(student))
            results.push_back(std::move(*stored));
        else
            std::cout << fmt::format("{}: no readable result in {}: run the command again\n", student,
                                     cache.folder_of(student).string());
    }
    const auto [graded, failed_builds, not_graded_count] = count_outcomes(results);
    std::cout << fmt::format("\n{}: {} graded, {} did not compile, {} not graded\n", lesson.id, graded,
                             failed_builds, not_graded_count);
    // The class compared as the embedded engine compares it: SUBMISSIONS read
    // again, the job's students only. Where they cannot be read any more (moved
    // since the job was submitted), the gradebook is still written, unflagged.
    std::optional<class_similarity> similarity;
    try {
        const submission_set set =
            read_submissions(record.submissions, rules_for(lesson), kind_named(record.submissions_kind));
        std::vector<const submission*> students;
        for (const submission& s : set.submissions)
            if (std::find(record.students.begin(), record.students.end(), s.student) != record.students.end())
                students.push_back(&s);
        similarity = compare_class_if_asked(m, lesson, students, parse_similarity_threshold(record.similarity));
    } catch (const user_error& e) {
        std::cout << "submissions not compared for similarity: " << e.what() << "\n";
    }
    write_class_outputs(m, lesson, record.out, results, similarity ? &*similarity : nullptr);
    std::cout << "per student: " << cache.root().string() << "/<student>/report.txt\n";
    // Every task refused, as the embedded engine would have on one such machine.
    if (!ends.empty() && refused == ends.size()) {
        std::cout << "nothing was graded: no node of the job could grade (above); once fixed, run the same "
                     "command again\n";
        return build_error;
    }
    return not_graded_count > 0 || results.size() < record.students.size() ? not_graded : all_passed;
}

// Steps 4 and 5.
int follow_and_finish(slurm_job_record& record, const manifest& m, const lesson_info& lesson) {
    slurm_commands slurm(record.out / "slurm" / "commands");
    const result_cache cache(record.out / "students");
    stop_following = false;
    std::signal(SIGINT, on_interrupt);
    const follow_outcome followed = follow_slurm_job(record, slurm, cache, stop_following);
    std::signal(SIGINT, SIG_DFL);
    if (followed.stopped) {
        std::cout << "\nstopped following.\n";
        say_how_to_collect(record);
        return not_graded;
    }
    return finish(record, m, lesson, followed.ends);
}

}  // namespace

int run_slurm_batch(const common_args& common, const batch_args& args) {
    if (!args.chunk.empty() || args.only_students)
        throw user_error(usage_error, "--chunk and --only-students are what --engine slurm gives each array task; "
                                      "leave them out");
    parse_similarity_threshold(args.similarity);  // a bad value stops it before anything is submitted
    const batch_class klass = open_batch_class(common, args);
    const fs::path slurm_dir = klass.out / "slurm";
    slurm_commands slurm(slurm_dir / "commands");
    if (!args.slurm.dry_run) refuse_if_a_job_is_queued(klass.out, slurm);
    check_partition_gpus(klass, args, slurm);
    warn_if_no_sandbox_here(args);

    if (args.build) build_course_for_batch(klass.course, klass.lesson);
    fs::create_directories(klass.out / "logs");
    const std::vector<listed_test> tests = list_graded_tests(klass.lesson.variant("solution")->tests, klass.out / "logs");
    refuse_without_what_the_build_needs(klass, tests, args.no_sandbox);
    const result_cache cache(klass.out / "students");
    const batch_todo todo = sort_out_graded(klass.chosen, klass.lesson.id, course_commit(klass.course.source_dir),
                                            cache, args.force);
    if (!todo.already_graded.empty())
        std::cout << fmt::format("{} already graded with these files and this course (--force regrades them)\n",
                                 todo.already_graded.size());

    slurm_job_record record;
    record.lesson = klass.lesson.id;
    record.build_dir = klass.course.build_dir;
    record.submissions = klass.submissions_path;
    record.submissions_kind = args.kind;
    record.similarity = args.similarity;
    record.out = klass.out;
    for (const submission* s : klass.chosen) record.students.push_back(s->student);
    if (todo.to_grade.empty()) {
        std::cout << "nothing left to grade: no job submitted\n";
        return finish(record, klass.course, klass.lesson, {});
    }

    std::vector<std::string> to_grade;
    for (const auto& job : todo.to_grade) {
        const submission& s = *job.work;
        to_grade.push_back(s.student);
        if (const auto written = cache.written_at(s.student))
            record.results_before[s.student] = written->time_since_epoch().count();
        record.who[s.student] = {s.submitters.empty() ? "" : s.submitters.front().email,
                                 s.submitters.empty() ? "" : s.submitters.front().sid, s.problems};
    }
    record.chunks = cut_into_chunks(to_grade, static_cast<std::size_t>(args.slurm.chunk_size));
    const fs::path student_list = slurm_dir / "students.json";
    write_student_list(student_list, to_grade);
    const unsigned long long seed = args.seed.value_or(std::random_device{}() % 100000);
    std::size_t largest_chunk = 0;
    for (const auto& chunk : record.chunks) largest_chunk = std::max(largest_chunk, chunk.size());
    // grader verify's times for this lesson, where it was run with this build.
    const auto measured = load_measured_grading(klass.course.build_dir, klass.lesson.id);
    record.spec = job_spec(klass, args, largest_chunk, tests.size(), measured);
    std::cout << time_limit_source(klass, args, record.spec.time_limit_minutes, measured) << "\n";
    fit_memory_to_the_nodes(record.spec, args, slurm);
    record.spec.array_tasks = static_cast<int>(record.chunks.size());
    record.spec.task_command = task_command(klass, args, student_list, record.chunks.size(), seed);
    const fs::path script = slurm_dir / "grade.sbatch";
    write_file_atomically(script, slurm_batch_script(record.spec));
    fs::create_directories(record.spec.log_dir);

    if (args.slurm.dry_run) {
        std::cout << file_text(script);
        std::cout << fmt::format("\ndry run: nothing submitted. The script above is {}; submitted by hand "
                                 "(sbatch), its tasks write their results into {}, and this command run again "
                                 "afterwards submits only what has none and writes the gradebook.\n",
                                 script.string(), cache.root().string());
        return all_passed;
    }
    forget_task_refusals(klass.out);
    const std::string job_id = slurm.submit(script);
    record.jobs.push_back({job_id, {}, script});
    for (int i = 0; i < record.spec.array_tasks; ++i) record.jobs.back().tasks.push_back(i);
    save_slurm_job_record(record);
    std::cout << fmt::format("submitted job {}: {} task(s) of at most {} submission(s) each, {}time limit {} min "
                             "per task, seed {}\n  script {}\n  task logs {}\n",
                             job_id, record.chunks.size(), largest_chunk,
                             record.spec.gres.empty() ? "no GPU, " : record.spec.gres + ", ",
                             record.spec.time_limit_minutes, seed, script.string(), record.spec.log_dir.string());
    std::cout << std::flush;  // before the progress lines, which go to stderr
    if (!args.slurm.wait) {
        say_how_to_collect(record);
        return all_passed;
    }
    return follow_and_finish(record, klass.course, klass.lesson);
}

int collect_slurm_batch(const common_args& common, const fs::path& out) {
    const fs::path folder = fs::absolute(out).lexically_normal();
    std::optional<slurm_job_record> record = load_slurm_job_record(folder);
    if (!record)
        throw user_error(usage_error, fmt::format("{} holds no Slurm job ({} is missing): collect gathers what "
                                                  "`grader batch --engine slurm` submitted into that folder",
                                                  folder.string(), slurm_job_record_file(folder).string()));
    const manifest m = open_build(common.build_dir ? common.build_dir : std::optional(record->build_dir));
    const lesson_info& lesson = find_lesson(m, record->lesson);
    if (record->jobs.empty()) {
        std::cout << "no job was submitted for this batch\n";
        return finish(*record, m, lesson, {});
    }
    std::cout << fmt::format("{}: following job {} ({} task(s))\n", lesson.id, record->jobs.front().id,
                             record->chunks.size())
              << std::flush;
    return follow_and_finish(*record, m, lesson);
}

}  // namespace grader
