#include "slurm/script.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <tuple>

#include "system/user_error.hpp"

namespace grader {

namespace {

[[noreturn]] void bad_spec(const std::string& why) {
    throw user_error(usage_error, "cannot write the Slurm job script: " + why);
}

// sbatch reads "#SBATCH --name=value" itself, not through a shell: a space
// would end the value, a line break the directive. Such values are refused
// rather than quoted in a way sbatch might not undo.
std::string sbatch_line(std::string_view option, const std::string& value) {
    const bool has_space = std::any_of(value.begin(), value.end(),
                                       [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    if (value.empty() || has_space)
        bad_spec(fmt::format("--{} needs a value without spaces or line breaks, not '{}'", option, value));
    return fmt::format("#SBATCH --{}={}\n", option, value);
}

// Extra options are passed through verbatim, so an administrator's
// "--constraint=h100" or "--reservation=exam" works without the grader knowing it.
std::string extra_sbatch_line(const std::string& option) {
    if (option.rfind("--", 0) != 0)
        bad_spec(fmt::format("the sbatch option '{}' must start with \"--\" (write --constraint=h100, not -C h100)", option));
    if (option.find_first_of("\r\n") != std::string::npos)
        bad_spec(fmt::format("the sbatch option '{}' holds a line break", option));
    return fmt::format("#SBATCH {}\n", option);
}

bool is_variable_name(const std::string& name) {
    return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
           std::all_of(name.begin(), name.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

struct node_token {
    std::string_view token, expansion;
};
constexpr node_token node_tokens[] = {
    {slurm_task_token, "\"$SLURM_ARRAY_TASK_ID\""},
    {slurm_scratch_token, "\"${TMPDIR:-/tmp}\""},
};

// The first node token in `arg` at or after `from`: where, and which.
std::pair<std::size_t, const node_token*> next_token(const std::string& arg, std::size_t from) {
    std::pair<std::size_t, const node_token*> first{std::string::npos, nullptr};
    for (const auto& t : node_tokens)
        if (const auto at = arg.find(t.token, from); at < first.first) first = {at, &t};
    return first;
}

// One argument of the task's command: quoted, with each node token outside
// the quotes as its expansion, so "--chunk={task}/8" becomes
// --chunk="$SLURM_ARRAY_TASK_ID"/8 and "it's {task}" 'it'\''s '"$SLURM_ARRAY_TASK_ID".
std::string task_argument(const std::string& arg) {
    std::string word;
    std::size_t start = 0;
    for (auto [at, token] = next_token(arg, 0); token; std::tie(at, token) = next_token(arg, start)) {
        if (at > start) word += shell_quote(std::string_view(arg).substr(start, at - start));
        word += token->expansion;
        start = at + token->token.size();
    }
    if (start < arg.size() || word.empty()) word += shell_quote(std::string_view(arg).substr(start));
    return word;
}

// "95" would do for sbatch (minutes), but "1:35:00" reads as a duration.
std::string slurm_duration(int minutes) {
    const int days = minutes / (24 * 60), hours = minutes / 60 % 24;
    if (days > 0) return fmt::format("{}-{:02}:{:02}:00", days, hours, minutes % 60);
    return fmt::format("{}:{:02}:00", hours, minutes % 60);
}

std::string header(const slurm_job_spec& spec) {
    std::string text = fmt::format(
        "# A Slurm job array made by `grader batch --engine slurm`: {} task(s), each\n"
        "# grading one chunk of the submissions in node-local scratch and writing its\n"
        "# results into the shared results folder.\n",
        spec.array_indices.empty() ? static_cast<std::size_t>(spec.array_tasks) : spec.array_indices.size());
    if (!spec.made_by.empty()) text += "# Made by: " + spec.made_by + "\n";
    text += "# To submit it by hand: sbatch THIS_FILE\n";
    if (!spec.shared_paths.empty()) {
        text += "#\n# Every node must see these paths, at the same place (shared storage):\n";
        for (const auto& path : spec.shared_paths) text += "#   " + path.string() + "\n";
    }
    return text + "\n";
}

std::string sbatch_lines(const slurm_job_spec& spec) {
    if (spec.array_tasks < 1 && spec.array_indices.empty()) bad_spec("a job array needs at least one task");
    if (spec.time_limit_minutes < 1) bad_spec("the time limit must be at least one minute");
    if (std::any_of(spec.array_indices.begin(), spec.array_indices.end(), [](int i) { return i < 0; }))
        bad_spec("an array task index cannot be negative");
    std::string array = spec.array_indices.empty() ? fmt::format("0-{}", spec.array_tasks - 1)
                                                   : fmt::format("{}", fmt::join(spec.array_indices, ","));
    if (spec.throttle > 0) array += fmt::format("%{}", spec.throttle);

    std::string text;
    text += sbatch_line("job-name", spec.job_name);
    text += sbatch_line("array", array);
    text += sbatch_line("time", slurm_duration(spec.time_limit_minutes));
    text += sbatch_line("cpus-per-task", std::to_string(spec.cpus_per_task));
    if (!spec.gres.empty()) text += sbatch_line("gres", spec.gres);
    if (!spec.memory.empty()) text += sbatch_line("mem", spec.memory);
    if (!spec.partition.empty()) text += sbatch_line("partition", spec.partition);
    if (!spec.account.empty()) text += sbatch_line("account", spec.account);
    if (!spec.qos.empty()) text += sbatch_line("qos", spec.qos);
    // %A is the job's id, %a the task's index.
    if (!spec.log_dir.empty()) {
        text += sbatch_line("output", (spec.log_dir / "%A_%a.out").string());
        text += sbatch_line("error", (spec.log_dir / "%A_%a.err").string());
    }
    text += spec.requeue ? "#SBATCH --requeue\n" : "#SBATCH --no-requeue\n";
    for (const auto& option : spec.extra_options) text += extra_sbatch_line(option);
    return text;
}

// A missing mount fails the task at once, saying which path, rather than
// as a puzzling error deep inside the grader.
std::string shared_path_check(const slurm_job_spec& spec) {
    if (spec.shared_paths.empty()) return "";
    std::string text = "for shared in";
    for (const auto& path : spec.shared_paths) text += " " + shell_quote(path.string());
    text +=
        "; do\n"
        "    if [[ ! -e $shared ]]; then\n"
        "        echo \"$(hostname) does not see $shared: it must be on storage every node shares\" >&2\n"
        "        exit 1\n"
        "    fi\n"
        "done\n";
    return text;
}

}  // namespace

std::string slurm_batch_script(const slurm_job_spec& spec) {
    if (spec.task_command.empty()) bad_spec("no command for the tasks to run");
    std::string script = "#!/bin/bash\n";
    script += header(spec);
    script += sbatch_lines(spec);
    script += "\nset -euo pipefail\n";
    script +=
        "echo \"task ${SLURM_ARRAY_TASK_ID} of job ${SLURM_ARRAY_JOB_ID} on $(hostname),"
        " restart ${SLURM_RESTART_COUNT:-0}\"\n";
    script += shared_path_check(spec);
    for (const auto& [name, value] : spec.environment) {
        if (!is_variable_name(name)) bad_spec(fmt::format("'{}' is not an environment variable name", name));
        script += fmt::format("export {}={}\n", name, shell_quote(value));
    }
    std::string command = "exec";
    for (const auto& arg : spec.task_command) command += " " + task_argument(arg);
    return script + command + "\n";
}

int slurm_time_limit_minutes(const chunk_time_budget& budget) {
    const auto grading = budget.grading_per_submission ? *budget.grading_per_submission : budget.per_test * budget.tests;
    const auto per_submission = grading + budget.build_per_submission;
    const auto worst = per_submission * budget.submissions + budget.setup;
    const auto minutes = (worst.count() + 59) / 60;
    return static_cast<int>(std::max<long long>(minutes, 1));
}

std::string slurm_task_memory(const task_memory_budget& budget) {
    constexpr long long gib = 1LL << 30;
    const long long bytes = budget.per_program_bytes * 2 * std::max(1, budget.graders) + budget.rest_bytes;
    return fmt::format("{}G", (bytes + gib - 1) / gib);
}

}  // namespace grader
