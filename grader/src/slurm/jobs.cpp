#include "slurm/jobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "system/process.hpp"

namespace grader {

namespace fs = std::filesystem;

namespace {

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (;;) {
        const auto at = text.find(separator);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + 1);
    }
}

std::optional<int> to_int(std::string_view text) {
    text = trim(text);
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// "CANCELLED by 1000" (sacct names who cancelled) -> "CANCELLED".
std::string state_word(std::string_view state) {
    state = trim(state);
    return std::string(state.substr(0, state.find(' ')));
}

// squeue's exit_code is the raw wait status (768 for exit 3, 15 for SIGTERM);
// written the way sacct and scontrol write it, "code:signal".
std::string exit_code_from_wait_status(std::string_view status) {
    const auto raw = to_int(status);
    if (!raw) return std::string(trim(status));
    return fmt::format("{}:{}", (*raw >> 8) & 0xff, *raw & 0x7f);
}

// "123_4" -> {4}; "123_[4-7%2]" -> {4, 5, 6, 7}; a job step ("123_4.batch"),
// a job that is not an array ("123") or anything else -> nothing.
std::vector<int> task_indices_of(std::string_view job_id) {
    const auto underscore = job_id.find('_');
    if (underscore == std::string_view::npos || job_id.find('.') != std::string_view::npos) return {};
    try {
        return parse_array_indices(job_id.substr(underscore + 1));
    } catch (const slurm_error&) {
        return {};
    }
}

// One line's tasks, one per index a pending range covers.
void add_tasks(std::vector<slurm_task>& tasks, std::string_view job_id, const slurm_task& fields) {
    for (int index : task_indices_of(trim(job_id))) {
        slurm_task task = fields;
        task.index = index;
        tasks.push_back(task);
    }
}

// Sorted by index, one entry per index: a later line wins (sacct lists a
// requeued task's records oldest first).
std::vector<slurm_task> by_index(const std::vector<slurm_task>& tasks) {
    std::map<int, slurm_task> latest;
    for (const auto& task : tasks) latest[task.index] = task;
    std::vector<slurm_task> sorted;
    for (auto& [index, task] : latest) sorted.push_back(std::move(task));
    return sorted;
}

// Lines of '|'-separated fields whose first is a job id ("123_4",
// "123_[5-7]"): `read_fields` makes a task of the rest, which stands for each
// index the id covers. Lines with fewer fields (a warning) are skipped.
template <typename ReadFields>
std::vector<slurm_task> parse_task_lines(std::string_view output, std::size_t field_count, ReadFields read_fields) {
    std::vector<slurm_task> tasks;
    for (const auto line : split(output, '\n')) {
        const auto fields = split(line, '|');
        if (fields.size() < field_count) continue;
        add_tasks(tasks, fields[0], read_fields(fields));
    }
    return by_index(tasks);
}

struct state_meaning {
    const char* state;
    task_verdict verdict;
    const char* words;  // what happened to the task, for a person
};

// Slurm's job states (man squeue, JOB STATE CODES).
constexpr state_meaning state_meanings[] = {
    {"PENDING", task_verdict::waiting, "waiting for a node"},
    {"CONFIGURING", task_verdict::waiting, "starting: its node is being set up"},
    {"RUNNING", task_verdict::waiting, "running"},
    {"COMPLETING", task_verdict::waiting, "finishing"},
    {"REQUEUED", task_verdict::waiting, "requeued by Slurm, to run again"},
    {"REQUEUE_FED", task_verdict::waiting, "requeued by a federation, to run again"},
    {"REQUEUE_HOLD", task_verdict::waiting, "requeued and held"},
    {"SPECIAL_EXIT", task_verdict::waiting, "requeued and held after a special exit code"},
    {"RESIZING", task_verdict::waiting, "changing size"},
    {"SUSPENDED", task_verdict::waiting, "suspended"},
    {"STOPPED", task_verdict::waiting, "stopped by a signal"},
    {"SIGNALING", task_verdict::waiting, "being signaled"},
    {"STAGE_OUT", task_verdict::waiting, "staging out its files"},
    {"RESV_DEL_HOLD", task_verdict::waiting, "held: its reservation was deleted"},
    {"COMPLETED", task_verdict::done, "completed"},
    {"FAILED", task_verdict::failed, "the grader's command failed on the node (see the task's log)"},
    {"TIMEOUT", task_verdict::killed, "killed at its time limit"},
    {"OUT_OF_MEMORY", task_verdict::killed, "killed for using more memory than it asked for"},
    {"NODE_FAIL", task_verdict::killed, "its node failed"},
    {"PREEMPTED", task_verdict::killed, "preempted by a job of higher priority"},
    {"CANCELLED", task_verdict::killed, "cancelled (scancel, by a person or an administrator)"},
    {"BOOT_FAIL", task_verdict::killed, "its node failed to start"},
    {"DEADLINE", task_verdict::killed, "ended at its deadline"},
    {"REVOKED", task_verdict::killed, "revoked: another cluster of the federation ran it"},
};

const state_meaning* meaning_of(std::string_view state) {
    for (const auto& meaning : state_meanings)
        if (meaning.state == state) return &meaning;
    return nullptr;
}

}  // namespace

task_verdict verdict_of(std::string_view state) {
    // A state this grader does not know is taken as an end: waiting on it
    // could be waiting forever, while a chunk taken for lost is run again.
    const auto* meaning = meaning_of(state_word(state));
    return meaning ? meaning->verdict : task_verdict::killed;
}

const char* to_string(task_verdict verdict) {
    switch (verdict) {
        case task_verdict::waiting: return "waiting";
        case task_verdict::done: return "done";
        case task_verdict::killed: return "killed";
        case task_verdict::failed: return "failed";
    }
    return "?";
}

std::string describe_end(const slurm_task& task) {
    const auto* meaning = meaning_of(task.state);
    std::string text = meaning ? meaning->words : fmt::format("ended in state {}, which the grader does not know", task.state);
    if (task.state == "FAILED" && !task.exit_code.empty()) text += fmt::format(", exit code {}", task.exit_code);
    std::string slurm_said = task.state + (task.source.empty() ? "" : " from " + task.source);
    if (!task.reason.empty() && task.reason != "None") slurm_said += ", reason " + task.reason;
    return fmt::format("{} ({})", text, slurm_said);
}

std::string parse_sbatch_output(std::string_view output) {
    // The id is on the last line; sbatch may print warnings before it.
    const auto lines = split(trim(output), '\n');
    const auto last = trim(lines.back());
    const auto id = last.substr(0, last.find(';'));  // "123;cluster"
    if (!to_int(id)) throw slurm_error(fmt::format("sbatch did not print a job id; it said:\n{}", trim(output)));
    return std::string(id);
}

std::vector<int> parse_array_indices(std::string_view text) {
    text = trim(text);
    const std::string whole(text);
    if (!text.empty() && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
    text = text.substr(0, text.find('%'));  // the throttle: not an index
    std::vector<int> indices;
    for (const auto part : split(text, ',')) {
        const auto dash = part.find('-');
        const auto first = to_int(part.substr(0, dash));
        const auto last = dash == std::string_view::npos ? first : to_int(part.substr(dash + 1));
        if (!first || !last || *first < 0 || *last < *first)
            throw slurm_error(fmt::format("'{}' is not a list of array task indices", whole));
        for (int i = *first; i <= *last; ++i) indices.push_back(i);
    }
    return indices;
}

std::vector<slurm_task> parse_squeue(std::string_view output) {
    // JobArrayID|State|Reason|exit_code|TimeUsed|NodeList|RestartCnt| (squeue_fields)
    return parse_task_lines(output, 7, [](const auto& fields) {
        slurm_task task;
        task.state = state_word(fields[1]);
        task.reason = trim(fields[2]);
        task.exit_code = exit_code_from_wait_status(fields[3]);
        task.elapsed = trim(fields[4]);
        task.node = trim(fields[5]);
        task.restarts = to_int(fields[6]).value_or(0);
        task.source = "squeue";
        return task;
    });
}

std::vector<slurm_task> parse_sacct(std::string_view output) {
    // JobID|State|ExitCode|Elapsed|NodeList|Reason (sacct_fields)
    return parse_task_lines(output, 6, [](const auto& fields) {
        slurm_task task;
        task.state = state_word(fields[1]);
        task.exit_code = trim(fields[2]);
        task.elapsed = trim(fields[3]);
        task.node = fields[4] == "None assigned" ? "" : trim(fields[4]);
        task.reason = trim(fields[5]);
        task.source = "sacct";
        return task;
    });
}

std::optional<long long> parse_sinfo_largest_memory_mib(std::string_view output) {
    std::optional<long long> largest;
    for (const auto raw : split(output, '\n')) {
        const std::string line(trim(raw));
        std::size_t digits = 0;
        while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
        if (digits == 0 || digits > 15) continue;
        const std::string rest = line.substr(digits);
        if (!rest.empty() && rest != "+") continue;
        const long long mib = std::stoll(line.substr(0, digits));
        if (!largest || mib > *largest) largest = mib;
    }
    return largest;
}

std::vector<std::string> parse_sinfo_gpu_types(std::string_view output) {
    std::vector<std::string> types;
    for (const auto line : split(output, '\n')) {
        // "(S:0,1)" says which sockets: it may hold commas of its own.
        std::string entries;
        int depth = 0;
        for (char c : line) {
            if (c == '(') ++depth;
            else if (c == ')') depth = std::max(0, depth - 1);
            else if (depth == 0) entries += c;
        }
        for (const auto entry : split(entries, ',')) {
            const auto fields = split(trim(entry), ':');
            if (fields.size() < 2 || fields[0] != "gpu") continue;
            // gpu:TYPE:COUNT, or gpu:COUNT without a type.
            std::string type = fields.size() >= 3 ? std::string(trim(fields[1])) : "";
            std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
            if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
        }
    }
    return types;
}

std::optional<int> compute_capability_of_gpu_type(std::string_view type) {
    // Data-centre and workstation GPUs a cluster's gres.conf names, by model.
    static const std::map<std::string, int, std::less<>> models = {
        {"t4", 75},
        {"a100", 80}, {"a800", 80}, {"a30", 80},
        {"a40", 86}, {"a10", 86}, {"a10g", 86}, {"a16", 86}, {"a2", 86}, {"a4000", 86}, {"a5000", 86},
        {"a6000", 86}, {"rtx3090", 86},
        {"l4", 89}, {"l40", 89}, {"l40s", 89}, {"l20", 89}, {"rtx4090", 89},
        {"h100", 90}, {"h200", 90}, {"gh200", 90}, {"h800", 90}, {"h20", 90},
        {"b100", 100}, {"b200", 100}, {"gb200", 100},
        {"rtx5090", 120}};
    std::string word;
    const auto known = [&]() -> std::optional<int> {
        const auto found = models.find(word);
        word.clear();
        if (found == models.end()) return std::nullopt;
        return found->second;
    };
    for (char c : type) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (const auto cc = known()) {
            return cc;
        }
    }
    return known();
}

slurm_commands::slurm_commands(fs::path work_dir) : work_dir_(std::move(work_dir)) {
    fs::create_directories(work_dir_);
}

slurm_commands::answer slurm_commands::run(const std::string& program, std::vector<std::string> args) {
    const auto found = find_program(program);
    if (!found)
        throw slurm_error(fmt::format("{} is not installed here (or not on PATH): `grader batch --engine slurm` "
                                      "runs on a machine that can submit Slurm jobs (a login node)",
                                      program));
    args.insert(args.begin(), found->string());
    const fs::path log = work_dir_ / (program + ".out");
    const exit_status status = run_command(args, log);
    return {!status.signaled && status.code == 0, file_text(log)};
}

std::string slurm_commands::submit(const fs::path& script) {
    const auto sbatch = run("sbatch", {"--parsable", script.string()});
    if (!sbatch.ok) throw slurm_error(fmt::format("sbatch refused {}:\n{}", script.string(), trim(sbatch.output)));
    return parse_sbatch_output(sbatch.output);
}

std::optional<std::vector<slurm_task>> slurm_commands::sacct_states(const std::string& job_id) {
    if (!accounting_available_) return std::nullopt;
    const auto sacct = run("sacct", {"--jobs=" + job_id, "--allocations", "--parsable2", "--noheader",
                                     std::string("--format=") + sacct_fields});
    if (sacct.ok) return parse_sacct(sacct.output);
    if (sacct.output.find("accounting storage is disabled") != std::string::npos) {
        accounting_available_ = false;
        return std::nullopt;
    }
    throw slurm_error(fmt::format("sacct failed for job {}:\n{}", job_id, trim(sacct.output)));
}

std::vector<slurm_task> slurm_commands::array_task_states(const std::string& job_id) {
    std::vector<slurm_task> tasks = sacct_states(job_id).value_or(std::vector<slurm_task>{});
    const auto squeue = run("squeue", {"--noheader", "--array", "--states=all", "--jobs=" + job_id,
                                       std::string("--Format=") + squeue_fields});
    // A job the controller has forgotten is an error to squeue; sacct may still know it.
    const bool forgotten = squeue.output.find("Invalid job id") != std::string::npos;
    if (!squeue.ok && !forgotten)
        throw slurm_error(fmt::format("squeue failed for job {}:\n{}", job_id, trim(squeue.output)));
    if (squeue.ok) {
        const auto live = parse_squeue(squeue.output);
        tasks.insert(tasks.end(), live.begin(), live.end());  // after sacct's: squeue wins
    }
    return by_index(tasks);
}

bool slurm_commands::queued(const std::string& job_id) {
    // squeue's default states are exactly pending, running and completing.
    const auto squeue = run("squeue", {"--noheader", "--array", "--jobs=" + job_id, "--format=%i"});
    if (!squeue.ok && squeue.output.find("Invalid job id") != std::string::npos) return false;
    if (!squeue.ok) throw slurm_error(fmt::format("squeue failed for job {}:\n{}", job_id, trim(squeue.output)));
    return !trim(squeue.output).empty();
}

std::optional<std::string> slurm_commands::generic_resources(const std::string& partition) {
    return sinfo_column("%G", partition);
}

std::optional<std::string> slurm_commands::node_memory(const std::string& partition) {
    return sinfo_column("%m", partition);
}

std::optional<std::string> slurm_commands::sinfo_column(const std::string& format, const std::string& partition) {
    std::vector<std::string> args{"--noheader", "--format=" + format};
    if (!partition.empty()) args.push_back("--partition=" + partition);
    try {
        const auto sinfo = run("sinfo", args);
        if (!sinfo.ok) return std::nullopt;
        return sinfo.output;
    } catch (const slurm_error&) {  // not installed here
        return std::nullopt;
    }
}

void slurm_commands::cancel(const std::string& job_id) {
    const auto scancel = run("scancel", {job_id});
    if (!scancel.ok && scancel.output.find("Invalid job id") == std::string::npos)
        throw slurm_error(fmt::format("scancel failed for job {}:\n{}", job_id, trim(scancel.output)));
}

}  // namespace grader
