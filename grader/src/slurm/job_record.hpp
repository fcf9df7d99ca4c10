#pragma once
// What `grader batch --engine slurm` writes down when it submits a job, in
// OUT/logs/slurm-job.json: enough for `grader batch collect OUT` (another
// process, maybe days later, maybe another login node) to follow the job, run
// its killed tasks again and write the gradebook, without the command line
// that started it.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "slurm/script.hpp"

namespace grader {

namespace fs = std::filesystem;

struct slurm_job_record {
    std::string lesson;                         // "lesson04"
    fs::path build_dir, submissions, out;       // absolute, as the nodes see them
    // How to read SUBMISSIONS again (--kind) and --similarity: the class is
    // compared once the job is done, by whichever process writes the gradebook.
    std::string submissions_kind = "auto", similarity = "50%";
    std::vector<std::string> students;          // the whole class: the gradebook's rows
    std::vector<std::vector<std::string>> chunks;  // array task index -> the students it grades
    // For each student the job grades: when their stored result was last
    // written before the job (result_cache::written_at, in the file clock's
    // ticks); absent when there was none. A result written since is the job's.
    std::map<std::string, long long> results_before;
    // Who a student is, for the not-graded result written when no task
    // graded them: Gradescope's email and id, and what reading the files found.
    struct student_info {
        std::string email, sid;
        std::vector<std::string> problems;
    };
    std::map<std::string, student_info> who;
    slurm_job_spec spec;                        // the job as first submitted (OUT/slurm/grade.sbatch)
    struct submitted_job {
        std::string id;                         // Slurm's job id
        std::vector<int> tasks;                 // the array indices it runs
        fs::path script;
    };
    std::vector<submitted_job> jobs;            // the job, then the rerun of its killed tasks (if any)
};

fs::path slurm_job_record_file(const fs::path& out);  // out/logs/slurm-job.json

void save_slurm_job_record(const slurm_job_record& record);  // atomically, to slurm_job_record_file(record.out)

// nullopt when `out` has no record; throws user_error for a damaged one.
std::optional<slurm_job_record> load_slurm_job_record(const fs::path& out);

}  // namespace grader
