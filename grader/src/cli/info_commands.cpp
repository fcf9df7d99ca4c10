// grader list, grader hint, grader doctor: the commands that grade nothing.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>

#include "checkout/context.hpp"
#include "checkout/progress.hpp"
#include "cli/commands.hpp"
#include "cli/doctor_checks.hpp"
#include "cli/test_ids.hpp"
#include "course/device_info.hpp"
#include "report/formats.hpp"
#include "system/process.hpp"

namespace grader {

namespace {
std::string bar(int score, int max, int width = 20) {
    const int filled = max > 0 ? score * width / max : 0;
    std::string s;
    for (int i = 0; i < width; ++i) s += i < filled ? "█" : "░";
    return s;
}
}  // namespace

int cmd_list(const common_args& common) {
    const manifest m = open_build(common.build_dir);
    progress_store progress(m.build_dir / "grader-progress.json");
    if (!progress.warning().empty()) std::cerr << "grader: " << progress.warning() << "\n";
    for (const auto& lesson : m.lessons) {
        // Long titles are cut so that the scores stay in one column.
        const std::string title = lesson.title.size() > 36 ? lesson.title.substr(0, 33) + "..." : lesson.title;
        std::string line = fmt::format("  {}  {:<16} {:<36} ", lesson.id, lesson.slug, title);
        if (const auto* p = progress.get(lesson.id))
            line += fmt::format("{} {:>3}/{:<3} best {}", bar(p->best, p->max), p->best, p->max, p->when.substr(0, 10));
        else
            line += "not attempted";
        std::cout << line << "\n";
    }
    std::cout << "\ngrade one with: grader run lesson01; its tests: grader list lesson01\n";
    return all_passed;
}

int cmd_list_tests(const common_args& common, const std::string& name) {
    const manifest m = open_build(common.build_dir);
    const lesson_info& lesson = find_lesson(m, name);
    std::cout << format_test_list(lesson, lesson_tests(m, lesson, /*build_if_missing=*/true));
    return all_passed;
}

std::vector<hint> parse_hints(const std::string& markdown) {
    std::vector<hint> hints;
    std::istringstream in(markdown);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("## ", 0) == 0) {
            hints.push_back({line.substr(3), ""});
        } else if (!hints.empty()) {
            hints.back().text += line + "\n";
        }
    }
    for (auto& h : hints) {  // trim blank lines around each hint
        while (!h.text.empty() && (h.text.back() == '\n' || h.text.back() == ' ')) h.text.pop_back();
        while (!h.text.empty() && h.text.front() == '\n') h.text.erase(0, 1);
    }
    return hints;
}

std::string hint_heading(const std::string& lesson_id, std::size_t index, std::size_t count, const std::string& title) {
    const std::string heading = fmt::format("{} hint {} of {}", lesson_id, index + 1, count);
    std::string plain = title;
    for (char& c : plain) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool says_more = !title.empty() && plain != fmt::format("hint {}", index + 1);
    return says_more ? heading + ": " + title : heading;
}

int cmd_hint(const common_args& common, const std::string& name, bool all, const std::string& how_to_get_more) {
    const manifest m = open_build(common.build_dir);
    const lesson_info& lesson = find_lesson(m, name);
    const fs::path file = lesson.lesson_dir / "hints.md";
    const std::vector<hint> hints = parse_hints(file_text(file));
    if (hints.empty()) {
        std::cout << fmt::format("{} has no hints; its lesson text is {}\n", lesson.id,
                                 (lesson.lesson_dir / "README.md").string());
        return all_passed;
    }

    progress_store progress(m.build_dir / "grader-progress.json");
    const int seen = progress.hints_seen(lesson.id);
    // One new hint per call; --all repeats the ones already shown.
    const int upto = std::min<int>(static_cast<int>(hints.size()), all ? std::max(seen, 1) : seen + 1);
    for (int i = all ? 0 : upto - 1; i < upto; ++i)
        std::cout << fmt::format("{}\n\n{}\n\n",
                                 hint_heading(lesson.id, static_cast<std::size_t>(i), hints.size(), hints[i].title),
                                 hints[i].text);
    if (upto == static_cast<int>(hints.size()) && !all && seen >= upto)
        std::cout << "That was the last hint. The lesson text has the rest: " << (lesson.lesson_dir / "README.md").string() << "\n";
    else if (upto < static_cast<int>(hints.size()))
        std::cout << fmt::format("({} more: {})\n", hints.size() - upto,
                                 how_to_get_more.empty()
                                     ? fmt::format("run `grader hint {}` again; `--all` shows every hint so far", lesson.id)
                                     : how_to_get_more);
    if (upto > seen) {
        progress.set_hints_seen(lesson.id, upto);
        progress.save();
    }
    return all_passed;
}

namespace {

// What the machine answers, gathered for diagnose(): the CUDA runtime's
// answers, WSL2's files, the build's manifest and the nvcc on PATH.
machine_facts observe_machine(const common_args& common) {
    machine_facts facts;
    // Both answer without a GPU: the driver's version is 0 when no driver
    // library loads. A failed query leaves 0, which reads as "unknown".
    if (cudaDriverGetVersion(&facts.driver_version) != cudaSuccess) facts.driver_version = 0;
    if (cudaRuntimeGetVersion(&facts.runtime_version) != cudaSuccess) facts.runtime_version = 0;
    cudaGetLastError();  // a failed query must not linger as this thread's last error
    const auto& status = course::device_status();
    facts.device_count = status.count;
    facts.device_count_status = status.status;
    facts.device_count_reason = status.meaning;
    if (status.available) {
        const auto device = course::query_device();
        facts.gpu = observed_gpu{device.name, device.major, device.minor, device.sm_count,
                                 device.global_memory_bytes};
    }
    observe_wsl("/", facts);
    std::error_code cwd_error;
    facts.on_windows_drive = facts.wsl && on_windows_drive(fs::current_path(cwd_error));

    try {
        const manifest m = open_build(common.build_dir);
        facts.on_windows_drive = facts.wsl && on_windows_drive(m.source_dir);
        facts.build_found = true;
        facts.build_dir = m.build_dir.string();
        facts.lessons = m.lessons.size();
        facts.build_cmake = m.cmake.string();
        facts.build_cmake_exists = fs::exists(m.cmake);
        facts.build_nvcc = m.cuda_compiler;
        facts.build_nvcc_version = m.cuda_compiler_version;
        facts.build_architectures = m.cuda_architectures;
        facts.build_nvcc_exists = fs::exists(m.cuda_compiler);
    } catch (const user_error& e) {
        facts.build_problem = e.what();
    }
    if (const auto nvcc = find_program("nvcc")) {
        const fs::path scratch = fs::temp_directory_path() / fmt::format("grader-doctor-{}.txt", getpid());
        try {
            if (run_command({nvcc->string(), "--version"}, scratch).code == 0) {
                // "Cuda compilation tools, release 13.0, V13.0.88"
                const std::string text = file_text(scratch);
                const auto at = text.find("release ");
                if (at != std::string::npos) facts.path_nvcc_version = text.substr(at + 8, 8);
            }
        } catch (const std::exception&) {
        }
        std::error_code ec;
        fs::remove(scratch, ec);
    }
    return facts;
}

}  // namespace

int cmd_doctor(const common_args& common, bool grading) {
    const bool color = wants_color(STDOUT_FILENO);
    const machine_facts machine = observe_machine(common);
    int problems = 0;
    const auto print = [&](const std::vector<finding>& findings) {
        for (const finding& f : findings) {
            const char* mark = f.level == severity::ok ? "✓" : f.level == severity::note ? "!" : "✗";
            const char* tint = f.level == severity::ok ? "32" : f.level == severity::note ? "33" : "31";
            std::cout << "  " << (color ? fmt::format("\x1b[{}m{}\x1b[0m", tint, mark) : std::string(mark)) << " "
                      << f.what << "\n";
            if (!f.fix.empty()) std::cout << "      fix: " << f.fix << "\n";
            if (f.level == severity::problem) ++problems;
        }
    };
    print(diagnose(machine));
    if (grading) {
        // The GPU and its driver are above; here the rest of what a graded
        // run and a batch need, as `grader batch` checks it before grading.
        std::optional<manifest> m;
        try {
            m = open_build(common.build_dir);
        } catch (const user_error&) {
        }
        grading_facts needs = observe_grading_needs(m ? &*m : nullptr, grading_lookups::of_this_machine());
        needs.wsl = machine.wsl;
        std::cout << "\nfor grading (a batch, `grader run --sandbox`):\n";
        print(diagnose_grading(needs));
    }
    std::cout << (problems ? fmt::format("\n{} problem(s) found.\n", problems) : "\nall good.\n");
    return problems ? build_error : all_passed;
}

}  // namespace grader
