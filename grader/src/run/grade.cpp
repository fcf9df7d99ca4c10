#include "run/grade.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "checkout/context.hpp"
#include "course/device_info.hpp"
#include "course/testing/harness.hpp"
#include "course/testing/performance.hpp"
#include "run/gpu_memory.hpp"
#include "run/nvml.hpp"
#include "run/process_refusals.hpp"
#include "run/runner.hpp"
#include "run/test_processes.hpp"

namespace grader {

std::vector<std::string> targets_for_grading(const lesson_info& lesson, const std::string& variant) {
    std::vector<std::string> targets;
    for (const std::string& name : {variant, std::string("solution")}) {
        const variant_info* v = lesson.variant(name);
        if (v && std::find(targets.begin(), targets.end(), v->tests_target) == targets.end())
            targets.push_back(v->tests_target);
    }
    return targets;
}

lesson_report grade_variant(const manifest& m, const lesson_info& lesson, const std::string& variant_name,
                            const grade_options& options) {
    const variant_info* variant = lesson.variant(variant_name);
    if (!variant) throw user_error(usage_error, fmt::format("{} has no '{}' build", lesson.id, variant_name));
    return grade_program(m, lesson,
                         {variant_name, variant->tests, variant->library,
                          m.build_dir / "grader-logs" / fmt::format("{}-{}", lesson.id, variant_name)},
                         options);
}

namespace {
device_look look_at_device(int device) {
    device_look look;
    if (!course::has_device()) {
        look.no_gpu_reason = course::device_status().reason;
        return look;
    }
    try {
        look.summary = course::query_device(device < 0 ? 0 : device).summary();
    } catch (const std::exception&) {
    }
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device < 0 ? 0 : device) == cudaSuccess) look.pci_bus_id = bus_id;
    return look;
}

// The look's words in the report.
void name_the_gpu(lesson_report& report, const device_look& look) {
    report.device = look.summary;
    report.no_gpu_reason = look.no_gpu_reason;
}

// The PCI bus id of the GPU the tests will see, from NVML (a few
// milliseconds) where only one GPU can be that one: this process picks none
// (-1: CUDA's first) and the driver shows one. Whatever CUDA_VISIBLE_DEVICES
// says, CUDA then sees that GPU or none (the look at the GPU says so).
// Empty otherwise.
std::string sole_gpu_bus_id(int device) {
    if (device >= 0) return {};
    const nvml::library* nvml = nvml::opened();
    return nvml ? nvml->sole_gpu_bus_id() : std::string();
}
}  // namespace

program_grading::program_grading(const manifest& m, const lesson_info& lesson, const graded_program& program,
                                 const grade_options& options)
    : program_(program.tests) {
    report_.lesson_id = lesson.id;
    report_.readme = fmt::format("lessons/{}/README.md", lesson.dir);
    report_.title = lesson.title;
    report_.variant = program.variant;
    report_.seed = options.seed;
    // The GPU's bus id, which the tests' memory budget needs, from NVML where
    // it can: the report's name of the GPU then comes from the CUDA runtime
    // beside the tests, rather than before them (on an H200, a warm `grader
    // run lesson01` waited 0.15 s of its 1.1 to 1.25 s for it).
    run_.gpu_pci_bus_id = sole_gpu_bus_id(options.device);
    const auto looking = [timings = options.timings, device = options.device] {
        const step_timings::measure timed(timings, "the grader's own look at the GPU (CUDA runtime)");
        return look_at_device(device);
    };
    if (run_.gpu_pci_bus_id.empty()) {
        const device_look look = looking();
        name_the_gpu(report_, look);
        run_.gpu_pci_bus_id = look.pci_bus_id;
    } else {
        device_look_ = std::async(std::launch::async, looking);
    }
    run_.timings = options.timings;

    // The judge: the same graded tests built against the reference solution.
    // The student edition has none (`grader release`): there the student's
    // own program judges its recorded results, which checks them with the
    // tests' own oracles but proves nothing a student's code could not fake,
    // so the report says it is a practice grade.
    const variant_info* judge = lesson.variant("solution");
    if (!judge && !m.student_edition())
        throw user_error(build_error, fmt::format("{} has no solution build to judge with", lesson.id));
    report_.practice = !judge;

    run_.tests_program = program.tests;
    run_.judge_program = judge ? judge->tests : program.tests;
    run_.judge_is_the_students_program = !judge;
    run_.log_dir = program.log_dir;
    run_.seed = options.seed;
    run_.per_test_limit = options.per_test_limit;
    run_.test_limits = options.test_limits;
    run_.only = options.only;
    run_.implementation_library = program.library;
    if (!program.library.empty()) {
        run_.env.emplace_back(course::testing::implementation_symbols_variable,
                              implementation_symbols_file(run_).string());
        run_.env.emplace_back(course::testing::student_device_code_variable, device_code_dir(run_).string());
    }
    run_.gpu_recorder = m.gpu_recorder;
    // Only where it was built: a build of other targets alone may lack it.
    if (std::error_code ec; fs::is_regular_file(m.threads_only_launcher, ec))
        run_.threads_only_launcher = m.threads_only_launcher;
    run_.gate = options.gate;
    run_.places = options.places;
    if (!options.device_id.empty()) run_.env.emplace_back("CUDA_VISIBLE_DEVICES", options.device_id);
    // One memory figure for the student's program and the judge, so that
    // their speed tests size their arrays alike (gpu_memory.hpp).
    {
        const step_timings::measure timed(options.timings, "the GPU's free memory (NVML)");
        if (const auto free_bytes = free_gpu_memory(run_.gpu_pci_bus_id))
            run_.env.emplace_back(course::testing::gpu_memory_budget_variable, std::to_string(*free_bytes));
    }
    run_.env.emplace_back("GLIBC_TUNABLES", glibc_tunables_for_tests(std::getenv("GLIBC_TUNABLES")));
    run_.max_data_bytes = options.max_data_bytes;
    run_.max_processes = options.max_processes;
    run_.sanitize_failures = options.sanitize_failures;
    run_.sanitize_every_test = options.sanitize_every_test;
    run_.profile_failures = options.profile_failures;
    run_.profile_every_test = options.profile_every_test;
    if (options.sandbox) {
        run_.bwrap = options.bwrap ? options.bwrap : find_bubblewrap();
        // Hidden: the references, the known-wrong versions, cheats and textbook forms, and the
        // build folder (compiled solutions, other variants' evidence). Shown
        // again: the program's own library, which lesson07's tests read.
        run_.sandbox.kept = {m.source_dir};
        if (const fs::path toolkit = m.cuda_toolkit_dir(); !toolkit.empty()) run_.sandbox.kept.push_back(toolkit);
        run_.sandbox.hidden = {m.source_dir / "solutions", m.source_dir / "grader" / "mutants",
                               m.source_dir / "grader" / "cheats", m.source_dir / "grader" / "textbooks",
                               m.build_dir};
        run_.sandbox.hidden.insert(run_.sandbox.hidden.end(), options.also_hidden.begin(), options.also_hidden.end());
        if (!program.library.empty()) run_.sandbox.readable.push_back(program.library);
        if (!m.gpu_recorder.empty()) run_.sandbox.readable.push_back(m.gpu_recorder);
        report_.notes.push_back(describe_sandbox(run_.bwrap));
        if (run_.threads_only_launcher.empty() || !process_refusals::available())
            report_.notes.push_back(
                "NEW PROCESSES NOT REFUSED: course-threads-only was not built (it needs libseccomp), so the test "
                "program could start a helper process to do its work where the GPU's record does not look; "
                "install libseccomp-dev and build the course again");
    } else if (options.no_sandbox) {
        report_.notes.push_back(describe_no_sandbox());
    }
}

void program_grading::judge() {
    saying_what_could_not_run([&] { graded_ = judge_graded_tests(run_); });
}

bool program_grading::has_failures_to_explain() const { return grader::has_failures_to_explain(run_, graded_); }

double program_grading::explaining_cost() const { return grader::explaining_cost(run_, graded_); }

bool program_grading::explaining_needs_the_gpu_alone() const {
    return grader::explaining_needs_the_gpu_alone(run_, graded_);
}

void program_grading::explain(work_places* places) {
    run_options explaining = run_;
    if (places) explaining.places = places;
    saying_what_could_not_run([&] { explain_failures(explaining, graded_); });
}

void program_grading::saying_what_could_not_run(const std::function<void()>& step) const {
    try {
        step();
    } catch (const std::exception& e) {
        throw user_error(build_error, fmt::format("could not run {}: {}", program_.string(), e.what()));
    }
}

lesson_report program_grading::take_report() {
    if (device_look_.valid()) name_the_gpu(report_, device_look_.get());
    lesson_report report = std::move(report_);
    report.tests = std::move(graded_.tests);
    report.notes.insert(report.notes.end(), graded_.notes.begin(), graded_.notes.end());
    report.evidence_seconds = graded_.evidence_seconds;
    return report;
}

lesson_report grade_program(const manifest& m, const lesson_info& lesson, const graded_program& program,
                            const grade_options& options) {
    program_grading grading(m, lesson, program, options);
    grading.judge();
    grading.explain();
    return grading.take_report();
}

}  // namespace grader
