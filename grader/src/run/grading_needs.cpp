#include "run/grading_needs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "evidence/device_code.hpp"
#include "evidence/kernel_profile.hpp"
#include "evidence/sanitizer.hpp"
#include "run/process_refusals.hpp"

namespace grader {

namespace fs = std::filesystem;

namespace {

// "RmProfilingAdminOnly: 1" in the driver's parameters: only root may read
// the counters. nullopt where the driver does not say (none loaded, WSL2).
std::optional<bool> counters_for_admins_only_here() {
    std::ifstream params("/proc/driver/nvidia/params");
    if (!params) return std::nullopt;
    for (std::string line; std::getline(params, line);)
        if (line.rfind("RmProfilingAdminOnly:", 0) == 0)
            return line.find('1') != std::string::npos && ::geteuid() != 0;
    return std::nullopt;
}

// "13-0" for a 13.0.88 toolkit: how NVIDIA's apt packages name its version.
std::string package_version(const std::string& toolkit_version) {
    const auto first = toolkit_version.find('.');
    if (first == std::string::npos) return "X-Y";
    const auto second = toolkit_version.find('.', first + 1);
    return toolkit_version.substr(0, first) + "-" +
           toolkit_version.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
}

// The build folder as the fixes name it: the build's own, else setup's default.
std::string build_folder(const grading_facts& f) { return f.build_dir.empty() ? "build" : f.build_dir.string(); }

std::string rebuild(const grading_facts& f) {
    return fmt::format("then configure and build again (cmake {0} && cmake --build {0})", build_folder(f));
}

}  // namespace

grading_lookups grading_lookups::of_this_machine() {
    return {search_bubblewrap, find_compute_sanitizer, find_ncu, grader::reads_device_code,
            process_refusals::available, counters_for_admins_only_here};
}

grading_facts observe_grading_needs(const manifest* m, const grading_lookups& lookups) {
    grading_facts f;
    f.bubblewrap = lookups.bubblewrap();
    f.compute_sanitizer = lookups.compute_sanitizer();
    f.ncu = lookups.ncu();
    f.counters_for_admins_only = lookups.counters_for_admins_only();
    f.reads_device_code = lookups.reads_device_code();
    f.refuses_processes = lookups.refuses_processes();
    if (m) {
        std::error_code ec;
        f.build_known = true;
        f.gpu_recorder = m->gpu_recorder;
        f.gpu_recorder_built = !m->gpu_recorder.empty() && fs::is_regular_file(m->gpu_recorder, ec);
        f.threads_only_launcher = m->threads_only_launcher;
        f.threads_only_launcher_built =
            !m->threads_only_launcher.empty() && fs::is_regular_file(m->threads_only_launcher, ec);
        f.toolkit_version = m->cuda_compiler_version;
        f.build_dir = m->build_dir;
    }
    return f;
}

const char* to_string(grading_need need) {
    switch (need) {
        case grading_need::sandbox: return "bubblewrap (the sandbox)";
        case grading_need::compute_sanitizer: return "compute-sanitizer";
        case grading_need::ncu: return "ncu (Nsight Compute)";
        case grading_need::libelf: return "libelf";
        case grading_need::gpu_recorder: return "the GPU recorder (CUPTI)";
        case grading_need::threads_only: return "course-threads-only (libseccomp)";
    }
    return "?";
}

std::vector<grading_check> grading_checks(const grading_facts& f) {
    std::vector<grading_check> out;
    const std::string version = package_version(f.toolkit_version);

    if (f.bubblewrap.bwrap)
        out.push_back({grading_need::sandbox, true,
                       fmt::format("bubblewrap runs a sandbox here: {}", f.bubblewrap.bwrap->string()), ""});
    else
        out.push_back({grading_need::sandbox, false,
                       fmt::format("{}: a batch and `grader run --sandbox` (Gradescope) refuse to grade",
                                   f.bubblewrap.problem),
                       "apt-get install bubblewrap, and let it create user namespaces (sysctl "
                       "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and newer "
                       "kernel.apparmor_restrict_unprivileged_userns=0; in a container, --privileged); "
                       "`grader run` of your own work needs no sandbox"});

    if (f.compute_sanitizer)
        out.push_back({grading_need::compute_sanitizer, true,
                       fmt::format("compute-sanitizer: {}", f.compute_sanitizer->string()), ""});
    else
        out.push_back({grading_need::compute_sanitizer, false,
                       "compute-sanitizer not found: failed GPU tests are not explained (memory errors, races)",
                       fmt::format("install it with the CUDA toolkit (NVIDIA's apt repository: "
                                   "cuda-compute-sanitizer-{}), put the toolkit's bin/ on PATH, or name the "
                                   "program in COURSE_COMPUTE_SANITIZER",
                                   version)});

    const std::string windows_counters =
        "in Windows, NVIDIA Control Panel > Desktop > Enable Developer Settings, then Developer > Manage GPU "
        "Performance Counters > Allow access to all users";
    if (!f.ncu)
        out.push_back({grading_need::ncu, false,
                       "ncu (Nsight Compute) not found: slow kernels are not explained (no profile of them)",
                       fmt::format("install it with the CUDA toolkit (NVIDIA's apt repository: cuda-nsight-compute-{}), "
                                   "put the toolkit's bin/ on PATH, or name the program in COURSE_NCU{}",
                                   version, f.wsl ? "; on WSL2 it also needs the counters allowed: " + windows_counters : "")});
    else if (f.counters_for_admins_only.value_or(false))
        out.push_back({grading_need::ncu, false,
                       fmt::format("ncu: {}, but the driver lets only administrators read the GPU's counters "
                                   "(RmProfilingAdminOnly: 1), so its profiles fail (ERR_NVGPUCTRPERM)",
                                   f.ncu->string()),
                       "as root: echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' > "
                       "/etc/modprobe.d/nvidia-profiling.conf, then update-initramfs -u and reboot"});
    else
        out.push_back({grading_need::ncu, true,
                       fmt::format("ncu (Nsight Compute): {}{}", f.ncu->string(),
                                   f.wsl ? " (on WSL2 its counters must be allowed in Windows: " + windows_counters + ")"
                                         : ""),
                       ""});

    if (f.reads_device_code)
        out.push_back({grading_need::libelf, true, "libelf: the grader reads the device code the judge replays", ""});
    else
        out.push_back({grading_need::libelf, false,
                       "the grader was built without libelf: the speed tests the judge times by replaying the "
                       "student's kernels cannot be graded",
                       "apt-get install libelf-dev, " + rebuild(f)});

    if (!f.build_known)
        out.push_back({grading_need::gpu_recorder, false, "no build folder: the GPU recorder is not known",
                       "run ./setup.sh from the course's top folder"});
    else if (f.gpu_recorder_built)
        out.push_back({grading_need::gpu_recorder, true,
                       fmt::format("the GPU recorder (CUPTI): {}", f.gpu_recorder.string()), ""});
    else if (f.gpu_recorder.empty())
        out.push_back({grading_need::gpu_recorder, false,
                       "no GPU recorder: the build found no CUPTI, so timed tests have no record of the GPU's work",
                       fmt::format("install CUPTI with the CUDA toolkit (NVIDIA's apt repository: cuda-cupti-dev-{}), {}",
                                   version, rebuild(f))});
    else
        out.push_back({grading_need::gpu_recorder, false,
                       fmt::format("the GPU recorder {} is not built", f.gpu_recorder.string()),
                       fmt::format("cmake --build {} --target grader (it builds the recorder too)", build_folder(f))});

    if (!f.build_known)
        out.push_back({grading_need::threads_only, false, "no build folder: course-threads-only is not known",
                       "run ./setup.sh from the course's top folder"});
    else if (f.threads_only_launcher_built && f.refuses_processes)
        out.push_back({grading_need::threads_only, true,
                       fmt::format("course-threads-only (libseccomp): {}", f.threads_only_launcher.string()), ""});
    else if (f.threads_only_launcher.empty() || !f.refuses_processes)
        out.push_back({grading_need::threads_only, false,
                       "no course-threads-only: the build found no libseccomp, so graded runs cannot refuse a "
                       "student's program the helper processes that would work where the GPU's record does not look",
                       "apt-get install libseccomp-dev, " + rebuild(f)});
    else
        out.push_back({grading_need::threads_only, false,
                       fmt::format("course-threads-only {} is not built", f.threads_only_launcher.string()),
                       fmt::format("cmake --build {} --target grader (it builds the launcher too)", build_folder(f))});
    return out;
}

std::vector<grading_check> missing_for_batch(const grading_facts& facts, const std::vector<listed_test>& tests,
                                             bool gpus_here, bool no_sandbox) {
    const auto any = [&](auto pred) { return std::any_of(tests.begin(), tests.end(), pred); };
    const bool replayed = any([](const listed_test& t) { return t.timed_by_judge; });
    const bool timed = any([](const listed_test& t) { return t.alone || t.timed_by_judge; });
    const bool gpu = any([](const listed_test& t) { return t.gpu; });
    const bool kernel_speed = any([](const listed_test& t) { return t.kernel_speed; });
    std::vector<grading_check> missing;
    for (const grading_check& c : grading_checks(facts)) {
        if (c.ok) continue;
        bool needed = false;
        switch (c.need) {
            case grading_need::sandbox: needed = false; break;  // batch_sandbox's, before anything
            case grading_need::libelf: needed = replayed; break;
            case grading_need::gpu_recorder: needed = timed; break;
            case grading_need::threads_only: needed = !no_sandbox; break;
            case grading_need::compute_sanitizer: needed = gpus_here && gpu; break;
            case grading_need::ncu: needed = gpus_here && kernel_speed; break;
        }
        if (needed) missing.push_back(c);
    }
    return missing;
}

std::string grading_refusal(const std::vector<grading_check>& missing) {
    if (missing.empty()) return "";
    std::string text = fmt::format("this machine or this grader lacks what the batch needs, so nothing was graded "
                                   "(`grader doctor --grading` checks it all):");
    for (const grading_check& c : missing) text += fmt::format("\n  - {}: {}.\n    fix: {}", to_string(c.need), c.what, c.fix);
    return text;
}

}  // namespace grader
