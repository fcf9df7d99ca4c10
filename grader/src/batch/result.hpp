#pragma once
// What grading one submission of a batch came to. The per-student results
// folder (result_cache.hpp), the gradebook (gradebook.hpp) and the class
// report (class_report.hpp) are all written from these.
#include <optional>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace grader {

struct batch_result {
    std::string student;                  // as read_submissions named them: unique, sorted on
    std::string email, sid;               // Gradescope's submitter, when known: what a gradebook import matches on
    std::optional<lesson_report> report;  // the grade. After a build failure: every test failed, saying why
    bool build_failed = false;            // the student's code did not compile: a grade (zero), not an accident
    std::string build_error;              // then: what `grader run` prints for it (compile_failure_text)
    std::string not_graded;               // why nothing was graded (a lost GPU, a crashed worker): never a zero
    std::string worker;                   // which worker graded it ("node12 GPU 3"); the GPU's name is report->device
    std::vector<std::string> problems;    // what reading the submission found (submission::problems)
    // Built and graded in bubblewrap. False where it was graded without
    // (--no-sandbox; before batches failed closed, where bubblewrap could not
    // run): every output says so, and the result is not final (a rerun
    // grades it again, sandboxed where bubblewrap runs).
    bool sandboxed = true;

    enum class outcome { graded, build_failed, not_graded };
    // not_graded when a reason is given, or when not everything ran: no
    // report, or a report with a test skipped for want of a GPU. Its host
    // tests alone are no score: an import would take them for the grade.
    outcome state() const;
    // For a not-graded result, one line saying why ("its GPU tests could not
    // run here (no GPU: ...): grade the class on a GPU machine").
    std::string not_graded_reason() const;
};

const char* to_string(batch_result::outcome o);

}  // namespace grader
