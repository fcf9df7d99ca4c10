// grader list, grader hint, grader doctor: the commands that grade nothing.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "checkout/context.hpp"
#include "checkout/progress.hpp"
#include "cli/commands.hpp"
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
    std::cout << "\ngrade one with: grader run lesson01\n";
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
        std::cout << fmt::format("{} of {}: {}\n\n{}\n\n", lesson.id, hints.size(), hints[i].title, hints[i].text);
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

int cmd_doctor(const common_args& common) {
    const bool color = wants_color(STDOUT_FILENO);
    int problems = 0;
    auto ok = [&](const std::string& what) {
        std::cout << (color ? "  \x1b[32m✓\x1b[0m " : "  ✓ ") << what << "\n";
    };
    auto bad = [&](const std::string& what, const std::string& fix) {
        ++problems;
        std::cout << (color ? "  \x1b[31m✗\x1b[0m " : "  ✗ ") << what << "\n      fix: " << fix << "\n";
    };

    // The GPU and its driver.
    const auto& status = course::device_status();
    std::optional<course::device_properties> device;
    if (status.available) {
        device = course::query_device();
        ok(fmt::format("GPU: {}, {} SMs, {:.0f} GiB; {} device(s) visible", device->summary(), device->sm_count,
                       device->global_memory_bytes / double(1 << 30), status.count));
        if (device->driver_version >= device->runtime_version)
            ok(fmt::format("driver supports CUDA {} (runtime {})", course::cuda_version_string(device->driver_version),
                           course::cuda_version_string(device->runtime_version)));
        else
            bad(fmt::format("driver supports CUDA {} but the runtime is {}", course::cuda_version_string(device->driver_version),
                            course::cuda_version_string(device->runtime_version)),
                "install a newer NVIDIA driver");
    } else {
        bad(fmt::format("no CUDA device: {}", status.reason),
            "on a machine with an NVIDIA GPU, install its driver and check that `nvidia-smi` lists it; "
            "without one, everything builds but the GPU tests are skipped");
    }

    // The build folder, its compiler and architectures.
    try {
        const manifest m = open_build(common.build_dir);
        ok(fmt::format("build folder: {} ({} lessons)", m.build_dir.string(), m.lessons.size()));
        if (fs::exists(m.cuda_compiler))
            ok(fmt::format("CUDA compiler: {} ({})", m.cuda_compiler, m.cuda_compiler_version));
        else
            bad(fmt::format("CUDA compiler {} is gone", m.cuda_compiler), "reinstall the CUDA toolkit, then cmake --preset default");
        if (fs::exists(m.cmake)) ok(fmt::format("cmake: {}", m.cmake.string()));
        else bad(fmt::format("cmake {} is gone", m.cmake.string()), "install cmake (>= 3.24)");
        if (device) {
            const std::string mine = std::to_string(device->major * 10 + device->minor);
            const std::string& built = m.cuda_architectures;
            if (built.find("native") != std::string::npos || built.find(mine) != std::string::npos)
                ok(fmt::format("compiled for this GPU (architectures: {})", built));
            else
                bad(fmt::format("compiled for architectures {}, but this GPU is sm_{}", built, mine),
                    "reconfigure for this GPU: cmake --preset gpu && cmake --build build");
        }
    } catch (const user_error& e) {
        bad(e.what(), "run ./setup.sh from the course's top folder");
    }

    std::cout << (problems ? fmt::format("\n{} problem(s) found.\n", problems) : "\nall good.\n");
    return problems ? build_error : all_passed;
}

}  // namespace grader
