// grader bench LESSON: runs the lesson's Google Benchmark programs (GPU time
// from CUDA events), shows a progress bar, and writes one JSON file with the
// results, their spread over repetitions, and what they were measured on:
// device, compute capability, peak and measured bandwidth, toolkit, git
// commit and date. `grader plot` draws it.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "checkout/build.hpp"
#include "checkout/context.hpp"
#include "cli/bench_results.hpp"
#include "cli/commands.hpp"
#include "course/device_info.hpp"
#include "report/progress_bar.hpp"
#include "system/process.hpp"

namespace grader {

namespace {

using json = nlohmann::json;

std::string utc_now(const char* format) {
    const std::time_t now = std::time(nullptr);
    return fmt::format(fmt::runtime(format), fmt::gmtime(now));
}

// "When does the GPU win?" (lesson01's BM_when/cpu, BM_when/gpu_kernel,
// BM_when/gpu_with_copies): run by --vs-cpu alone, since it times the CPU
// and host-to-device copies, not the kernels against the copy bandwidth.
bool is_cpu_experiment(const std::string& name) { return name.rfind("BM_when/", 0) == 0; }

// The first line a command prints, or "" when it fails (git absent, not a checkout).
std::string first_line_of(const std::vector<std::string>& argv, const fs::path& scratch) {
    try {
        if (run_command(argv, scratch).code != 0) return "";
    } catch (const std::exception&) {
        return "";
    }
    std::string line;
    std::ifstream in(scratch);
    std::getline(in, line);
    return line;
}

// The benchmark names a program registers (--benchmark_list_tests).
std::vector<std::string> list_benchmarks(const fs::path& program, const fs::path& log) {
    const exit_status status = run_command({program.string(), "--benchmark_list_tests=true"}, log);
    if (status.signaled || status.code != 0)
        throw user_error(build_error, fmt::format("{} could not list its benchmarks ({}):\n{}", program.string(),
                                                  status.describe(), tail_of_file(log, 10)));
    std::vector<std::string> names;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("BM_", 0) == 0) names.push_back(line);
    return names;
}

// One program's run: which benchmarks, for which implementation.
struct bench_job {
    std::string impl;               // exercise, solution or baseline
    fs::path program;
    std::vector<std::string> names;
};

// Reads the lines a running benchmark program has printed since last time and
// counts the benchmarks it has finished (a name, or its _mean line, at a line's start).
class console_watcher {
public:
    console_watcher(fs::path log, const std::vector<std::string>& names)
        : log_(std::move(log)), names_(names.begin(), names.end()) {}

    int finished() {
        std::ifstream in(log_);
        in.seekg(static_cast<std::streamoff>(offset_));
        std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto last_newline = chunk.rfind('\n');
        if (last_newline == std::string::npos) return static_cast<int>(seen_.size());
        offset_ += last_newline + 1;
        std::istringstream lines(chunk.substr(0, last_newline));
        for (std::string line; std::getline(lines, line);) {
            std::string token = line.substr(0, line.find_first_of(" \t"));
            for (const char* suffix : {"_mean", "_median", "_stddev", "_cv"})
                if (token.size() > std::strlen(suffix) && token.ends_with(suffix))
                    token.erase(token.size() - std::strlen(suffix));
            if (names_.count(token)) {
                seen_.insert(token);
                last_ = token;
            }
        }
        return static_cast<int>(seen_.size());
    }
    const std::string& last() const { return last_; }

private:
    fs::path log_;
    std::set<std::string> names_;
    std::set<std::string> seen_;
    std::size_t offset_ = 0;
    std::string last_;
};

struct job_outcome {
    parsed_run parsed;
    std::optional<std::string> failure;  // the program itself failed (crash, hang, no output)
    json timeline;                       // lesson05's Gantt data, when the program wrote it
};

job_outcome run_job(const bench_job& job, const bench_args& args, const fs::path& work_dir) {
    const fs::path log = work_dir / fmt::format("{}.log", job.impl);
    const fs::path out = work_dir / fmt::format("{}.gbench.json", job.impl);
    const fs::path timeline = work_dir / fmt::format("{}.timeline.json", job.impl);  // lesson05 writes one
    child_process child({{job.program.string(), "--benchmark_filter=" + filter_for(job.names),
                          fmt::format("--benchmark_repetitions={}", args.repetitions),
                          fmt::format("--benchmark_min_time={}", args.min_time_s),
                          "--benchmark_display_aggregates_only=true", "--benchmark_out=" + out.string(),
                          "--benchmark_out_format=json"},
                         {{"COURSE_TIMELINE", timeline.string()}},
                         log,
                         false,
                         std::nullopt});

    progress_bar bar(fmt::format("{:>9}", job.impl), static_cast<int>(job.names.size()));
    console_watcher watcher(log, job.names);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(args.timeout_s);
    std::optional<exit_status> status;
    while (!(status = child.try_wait())) {
        if (std::chrono::steady_clock::now() > deadline) {
            child.kill();
            child.wait();
            job_outcome stopped;
            stopped.failure = fmt::format("stopped after {} s (--timeout): a kernel that never ends? Last output:\n{}",
                                          args.timeout_s, tail_of_file(log, 8));
            return stopped;
        }
        bar.update(watcher.finished(), parse_benchmark_name(watcher.last()).family);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    bar.update(watcher.finished(), "");

    job_outcome outcome;
    if (fs::exists(timeline)) {
        try {
            outcome.timeline = json::parse(file_text(timeline));
        } catch (const std::exception&) {
            // a half-written timeline is not worth failing the run for
        }
    }
    if (fs::exists(out) && fs::file_size(out) > 0) {
        try {
            outcome.parsed = parse_google_benchmark(read_google_benchmark_json(file_text(out)), job.impl);
        } catch (const std::exception& e) {
            outcome.failure = fmt::format("its JSON output {} could not be read: {}", out.string(), e.what());
        }
    }
    if (status->signaled || status->code != 0)
        outcome.failure = fmt::format("the program ended with {}. Last output:\n{}", status->describe(),
                                      tail_of_file(log, 8));
    return outcome;
}

std::set<double> parse_sizes(const std::vector<std::string>& texts, const char* option) {
    std::set<double> values;
    for (const auto& text : texts) {
        try {
            values.insert(parse_size(text));
        } catch (const std::invalid_argument& e) {
            throw user_error(usage_error, fmt::format("{}: {}", option, e.what()));
        }
    }
    return values;
}

// "1e+08", "2^20": how a size reads best.
std::string describe_size(double v) {
    const auto n = static_cast<unsigned long long>(v);
    if (n >= 65536 && (n & (n - 1)) == 0) return fmt::format("2^{}", __builtin_ctzll(n));
    if (n >= 10000) {  // 100000000 -> 1e8, 250000 -> 2.5e5
        int exponent = 0;
        double mantissa = v;
        while (mantissa >= 10) mantissa /= 10, ++exponent;
        if (std::fabs(mantissa * 10 - std::round(mantissa * 10)) < 1e-9) return fmt::format("{:g}e{}", mantissa, exponent);
    }
    return fmt::format("{}", n);
}

std::string available(const std::vector<std::string>& names, bool sizes) {
    std::set<double> values;
    for (const auto& name : names) {
        const benchmark_name b = parse_benchmark_name(name);
        if (auto v = sizes ? size_of(b) : block_size_of(b)) values.insert(*v);
    }
    std::vector<std::string> shown;
    for (double v : values) shown.push_back(describe_size(v));
    return shown.empty() ? "none" : fmt::format("{}", fmt::join(shown, ", "));
}

void print_summary(const json& results) {
    fmt::print("\n{:<42} {:>12} {:>10} {:>8} {:>10}\n", "benchmark", "median", "GB/s", "copy%", "GFLOP/s");
    for (const auto& r : results) {
        const auto& c = r["counters"];
        auto counter = [&](const char* key, const char* format) {
            return c.contains(key) ? fmt::format(fmt::runtime(format), c[key].get<double>()) : std::string("");
        };
        std::string label = r["impl"].get<std::string>() + " " + r["family"].get<std::string>();
        for (const auto& [key, value] : r["params"].items())
            label += fmt::format(" {}={}", key, describe_size(value.get<double>()));
        fmt::print("{:<42} {:>9.1f} us {:>10} {:>8} {:>10}\n", label, r["time_us"]["median"].get<double>(),
                   counter("GB/s", "{:.0f}"), counter("copy%", "{:.0f}%"), counter("GFLOP/s", "{:.0f}"));
    }
}

}  // namespace

int cmd_bench(const common_args& common, const bench_args& args) {
    const manifest m = open_build(common.build_dir);
    const lesson_info& lesson = find_lesson(m, args.lesson);
    if (args.output) check_output_path(m, *args.output);
    for (const auto& impl : args.impls)
        if (impl != "exercise" && impl != "solution" && impl != "baseline")
            throw user_error(usage_error, fmt::format("--impl {}: choose from exercise, solution, baseline", impl));
    const std::set<double> sizes = parse_sizes(args.sizes, "--sizes");
    const std::set<double> block_sizes = parse_sizes(args.block_sizes, "--block-sizes");
    std::optional<std::regex> filter;
    try {
        if (!args.filter.empty()) filter.emplace(args.filter);
    } catch (const std::regex_error& e) {
        throw user_error(usage_error, fmt::format("--filter '{}' is not a regular expression: {}", args.filter, e.what()));
    }

    // Which program times each implementation (bench_results.hpp): in the
    // student edition the baselines run in the exercise's.
    std::map<std::string, const variant_info*> programs;
    std::vector<std::string> targets;
    for (const auto& impl : args.impls) {
        const bench_program chosen = bench_program_for(lesson, impl, m.student_edition());
        if (!chosen.refusal.empty()) throw user_error(usage_error, chosen.refusal);
        const variant_info* v = lesson.variant(chosen.variant);
        programs[impl] = v;
        if (std::find(targets.begin(), targets.end(), v->bench_target) == targets.end())
            targets.push_back(v->bench_target);
    }

    if (!course::has_device()) {
        std::cerr << fmt::format("grader: no CUDA device, so nothing can be measured: {}\n"
                                 "Run `grader bench` on a machine with an NVIDIA GPU; `grader doctor` says more.\n",
                                 course::device_status().reason);
        return not_graded;
    }

    if (args.build) {
        std::cout << fmt::format("building {}...\n", fmt::join(targets, ", ")) << std::flush;
        const build_result built = build_targets(m, targets);
        if (!built.ok) {
            std::cout << fmt::format("\nthe benchmark does not compile, so nothing was measured.\n\n  {}\n\nfull log: {}\n",
                                     built.digest, built.log.string());
            return build_error;
        }
    }

    const std::string stamp = utc_now("{:%Y%m%d-%H%M%S}");
    const fs::path work_dir = m.build_dir / "bench" / fmt::format("{}-{}", lesson.id, stamp);
    fs::create_directories(work_dir);

    // What to run: each implementation's benchmarks, narrowed by the options.
    std::vector<bench_job> jobs;
    std::set<std::string> withheld;  // rows left out: their code is the instructor's edition's only
    for (const auto& impl : args.impls) {
        const variant_info& v = *programs.at(impl);
        const auto all = list_benchmarks(v.bench, work_dir / fmt::format("{}.list", impl));
        std::vector<std::string> mine;
        bool left_out = false;
        for (const auto& name : all) {
            if (is_baseline(name, lesson.baselines) != (impl == "baseline") || is_cpu_experiment(name) != args.vs_cpu ||
                (filter && !std::regex_search(name, *filter)))
                continue;
            if (is_withheld(name, lesson)) {
                withheld.insert(parse_benchmark_name(name).family);
                left_out = true;
            } else {
                mine.push_back(name);
            }
        }
        auto chosen = select_benchmarks(mine, sizes, block_sizes);
        if (mine.empty() && left_out) continue;  // said below
        if (chosen.empty()) {
            std::cerr << fmt::format("{}: no {} benchmark matches the options (sizes: {}; block sizes: {}).\n",
                                     lesson.id, impl, available(mine, true), available(mine, false));
            continue;
        }
        jobs.push_back({impl, v.bench, std::move(chosen)});
    }
    for (const auto& family : withheld)
        std::cout << fmt::format("{}: not timed here; its kernel is in the instructor's edition of the course only "
                                 "(it solves this lesson)\n",
                                 family);
    if (jobs.empty() && args.vs_cpu)
        throw user_error(usage_error, fmt::format("{} has no CPU experiment (--vs-cpu is lesson01's, \"When does the "
                                                  "GPU win?\"), or the options leave none of it",
                                                  lesson.id));
    if (jobs.empty()) throw user_error(usage_error, "nothing to run: loosen --sizes, --block-sizes or --filter");

    json doc = {{"schema", bench_schema},
                {"lesson", {{"id", lesson.id}, {"title", lesson.title}, {"dir", lesson.dir}}},
                {"context", json::object()},
                {"runs", json::array()},
                {"results", json::array()},
                {"errors", json::array()}};
    // Programs are named from the course's folder: a file that is shared (the
    // course site's measured figures) says nothing of the machine it was made on.
    auto course_relative = [&](const fs::path& program) {
        const fs::path relative = program.lexically_relative(m.source_dir);
        return relative.empty() || *relative.begin() == ".." ? program.string() : relative.string();
    };
    bool failed = false;
    for (const auto& job : jobs) {
        job_outcome outcome = run_job(job, args, work_dir);
        if (!outcome.timeline.is_null()) doc["timelines"][job.impl] = std::move(outcome.timeline);
        for (auto& r : outcome.parsed.results) doc["results"].push_back(std::move(r));
        for (auto& e : outcome.parsed.errors) doc["errors"].push_back(std::move(e));
        if (doc["context"].empty()) {
            doc["context"] = outcome.parsed.context;
            if (doc["context"].contains("executable"))  // Google Benchmark's own: the program's full path
                doc["context"]["executable"] = course_relative(doc["context"]["executable"].get<std::string>());
        }
        doc["runs"].push_back({{"impl", job.impl},
                               {"program", course_relative(job.program)},
                               {"benchmarks", job.names.size()},
                               {"repetitions", args.repetitions},
                               {"min_time_s", args.min_time_s}});
        if (outcome.failure) {
            failed = true;
            doc["runs"].back()["failure"] = *outcome.failure;
            std::cerr << fmt::format("{}'s benchmark program failed: {}\n", job.impl, *outcome.failure);
        }
    }

    // What the numbers were measured with, beyond what the program reported.
    auto& context = doc["context"];
    context["toolkit"] = m.cuda_compiler_version;
    context["cuda_architectures"] = m.cuda_architectures;
    // Only a checkout of the course itself says which commit ran: a copy of the
    // course inside some other repository would report that repository's commit.
    const std::string top = first_line_of(
        {"/usr/bin/env", "git", "-C", m.source_dir.string(), "rev-parse", "--show-toplevel"}, work_dir / "git.txt");
    std::error_code ec;
    const bool own_checkout = !top.empty() && fs::equivalent(top, m.source_dir, ec);
    const std::string commit =
        own_checkout ? first_line_of({"/usr/bin/env", "git", "-C", m.source_dir.string(), "rev-parse", "HEAD"},
                                     work_dir / "git.txt")
                     : "";
    context["git_commit"] = commit.empty() ? "unknown" : commit;
    if (!commit.empty())  // local changes that are not committed: the commit alone does not say what ran
        context["git_dirty"] = !first_line_of({"/usr/bin/env", "git", "-C", m.source_dir.string(), "status",
                                               "--porcelain", "--untracked-files=no"},
                                              work_dir / "git.txt")
                                    .empty();
    context["date"] = utc_now("{:%Y-%m-%dT%H:%M:%SZ}");
    const fs::path output = args.output.value_or(m.build_dir / "bench" / fmt::format("{}-{}.json", lesson.id, stamp));
    if (output.has_parent_path()) fs::create_directories(output.parent_path());
    std::ofstream(output) << doc.dump(1) << "\n";

    print_summary(doc["results"]);
    for (const auto& e : doc["errors"]) {
        failed = true;
        fmt::print("\n{} {}: {}", e["impl"].get<std::string>(), e["name"].get<std::string>(),
                   e["message"].get<std::string>());
    }
    if (!doc["errors"].empty())
        fmt::print("\n\nBenchmarks with errors measured nothing. An unfinished exercise fails here; {}.\n",
                   m.student_edition()
                       ? "the reference's own figures are in grader/site/measured/ (`grader plot` draws them)"
                       : "`--impl solution` measures the reference");
    fmt::print("\nwrote {}\ndraw it: grader plot {}\n", output.string(), output.string());
    return failed ? some_failed : all_passed;
}

}  // namespace grader
