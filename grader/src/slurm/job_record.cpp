#include "slurm/job_record.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "system/atomic_file.hpp"
#include "system/process.hpp"
#include "system/user_error.hpp"

namespace grader {

// The field names are the members' names: the file reads like the struct.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(slurm_job_spec, job_name, array_tasks, array_indices, throttle,
                                                time_limit_minutes, gres, cpus_per_task, memory, partition,
                                                account, qos, extra_options, log_dir, requeue, shared_paths,
                                                task_command, environment, made_by)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(slurm_job_record::student_info, email, sid, problems)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(slurm_job_record::submitted_job, id, tasks, script)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(slurm_job_record, lesson, build_dir, submissions, submissions_kind,
                                                similarity, out, students, chunks, results_before, who, spec, jobs)

namespace {
constexpr const char* schema = "course-slurm-job/1";
}

fs::path slurm_job_record_file(const fs::path& out) { return out / "logs" / "slurm-job.json"; }

void save_slurm_job_record(const slurm_job_record& record) {
    nlohmann::json j = record;
    j["schema"] = schema;
    write_file_atomically(slurm_job_record_file(record.out), j.dump(2) + "\n");
}

std::optional<slurm_job_record> load_slurm_job_record(const fs::path& out) {
    const fs::path file = slurm_job_record_file(out);
    if (!fs::exists(file)) return std::nullopt;
    try {
        const nlohmann::json j = nlohmann::json::parse(file_text(file));
        if (j.value("schema", "") != schema) throw std::runtime_error(fmt::format("not a {} file", schema));
        return j.get<slurm_job_record>();
    } catch (const std::exception& e) {
        throw user_error(usage_error, fmt::format("{} cannot be read ({}); it is written by `grader batch "
                                                  "--engine slurm`",
                                                  file.string(), e.what()));
    }
}

}  // namespace grader
