#include "cli/doctor_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

namespace grader {

std::optional<cuda_version> cuda_version::parse(const std::string& text) {
    static const std::regex version(R"((\d+)\.(\d+))");
    std::smatch m;
    if (!std::regex_search(text, m, version)) return std::nullopt;
    return cuda_version{std::stoi(m[1]), std::stoi(m[2])};
}

int oldest_architecture(cuda_version toolkit) {
    if (toolkit.major >= 13) return 75;  // CUDA 13 removed Maxwell, Pascal and Volta
    if (toolkit.major == 12) return 50;
    return 35;
}

int newest_architecture(cuda_version toolkit) {
    if (toolkit.major >= 13) return 121;
    if (toolkit.major == 12) return toolkit.minor >= 8 ? 120 : 90;  // Blackwell from 12.8
    return 90;
}

namespace {

std::string arch_name(int cc) { return fmt::format("sm_{}", cc); }

// The oldest Linux driver branch that runs each CUDA major version's programs.
std::string driver_branch_for(int cuda_major) {
    if (cuda_major >= 13) return "580";
    if (cuda_major == 12) return "525";
    return "450";
}

// CMAKE_CUDA_ARCHITECTURES read entry by entry: "75-real;80-real;120" is
// machine code for 75, 80 and 120, and PTX for 120 (a bare number or
// -virtual holds PTX; -real does not). The build's manifest writes the list
// with commas (it is JSON text), CMake with semicolons: either separates.
struct built_architecture {
    int arch = 0;
    bool ptx = false;
};
std::vector<built_architecture> architectures_of(std::string list) {
    std::replace(list.begin(), list.end(), ',', ';');
    std::vector<built_architecture> out;
    std::stringstream in(list);
    for (std::string entry; std::getline(in, entry, ';');) {
        try {
            out.push_back({std::stoi(entry.substr(0, entry.find('-'))), entry.find("-real") == std::string::npos});
        } catch (const std::exception&) {  // "native", "all": no number
        }
    }
    return out;
}

bool compiled_for(const std::string& architectures, int cc) {
    if (architectures.find("native") != std::string::npos || architectures.find("all") != std::string::npos)
        return true;
    for (const auto& built : architectures_of(architectures))
        if (built.arch == cc) return true;
    return false;
}

// The newest architecture the build holds as PTX at or below cc (which the
// driver compiles for this GPU at the first launch), or 0.
int ptx_for(const std::string& architectures, int cc) {
    int best = 0;
    for (const auto& built : architectures_of(architectures))
        if (built.ptx && built.arch <= cc && built.arch > best) best = built.arch;
    return best;
}

void driver_findings(const machine_facts& f, std::vector<finding>& out) {
    const cuda_version runtime = cuda_version::from_number(f.runtime_version);
    if (f.driver_version == 0) {
        if (f.wsl && !f.wsl_gpu_device)
            out.push_back({severity::problem,
                           "WSL2 without a GPU: /dev/dxg is missing, so Windows passes no GPU to this Linux",
                           "in Windows, install the current NVIDIA driver for your GPU (it carries WSL2's CUDA "
                           "support; install no NVIDIA driver inside WSL), run `wsl --update`, then `wsl --shutdown` "
                           "and open WSL again"});
        else if (f.wsl && !f.wsl_driver_library)
            out.push_back({severity::problem,
                           "WSL2 has the GPU (/dev/dxg) but not its CUDA library (/usr/lib/wsl/lib/libcuda.so.1)",
                           "update the NVIDIA driver in Windows and run `wsl --update`; an NVIDIA driver installed "
                           "inside WSL hides Windows' library: remove it"});
        else if (f.wsl)
            out.push_back({severity::problem,
                           "WSL2 has the GPU and /usr/lib/wsl/lib/libcuda.so.1, but no CUDA driver loads",
                           "let the loader find /usr/lib/wsl/lib: `sudo ldconfig`, and remove any NVIDIA driver "
                           "installed inside WSL"});
        else
            out.push_back({severity::problem, "no NVIDIA driver: there is no GPU here to grade on",
                           "on a machine with an NVIDIA GPU, install its driver and check that `nvidia-smi` lists "
                           "the GPU (a cluster's GPU node or Colab will do); here everything builds, but only the "
                           "tests that need no GPU are graded"});
        return;
    }
    const cuda_version driver = cuda_version::from_number(f.driver_version);
    if (driver.major < runtime.major) {
        out.push_back({severity::problem,
                       fmt::format("your driver runs CUDA {} programs; this build needs {}", driver.str(),
                                   runtime.str()),
                       fmt::format("build with CUDA {}: rm -rf build, then ./setup.sh with that toolkit's bin/ "
                                   "first on PATH; or update the driver (CUDA {} needs the {} driver or newer)",
                                   driver.major, runtime.major, driver_branch_for(runtime.major))});
        return;
    }
    if (driver < runtime)
        out.push_back({severity::note,
                       fmt::format("your driver runs CUDA {} programs and this build is {}: it runs through CUDA's "
                                   "minor-version compatibility, with this GPU's own code in the build",
                                   driver.str(), runtime.str()),
                       "update the driver when you can: a kernel built only as PTX, or compiled at run time "
                       "by NVRTC for a newer architecture, needs a driver as new as the toolkit"});
    else
        out.push_back({severity::ok,
                       fmt::format("driver runs CUDA {} programs (this build: {})", driver.str(), runtime.str()), ""});

    if (!f.device_count_status.empty() || f.device_count == 0) {
        const std::string why = f.device_count_status.empty()
                                    ? "it counts 0 GPUs"
                                    : fmt::format("{} ({})", f.device_count_status, f.device_count_reason);
        out.push_back({severity::problem, fmt::format("the driver is loaded but finds no GPU to use: {}", why),
                       "check that `nvidia-smi` lists the GPU; if CUDA_VISIBLE_DEVICES is set, it may hide "
                       "every GPU (unset it)"});
    }
}

void gpu_findings(const machine_facts& f, std::vector<finding>& out) {
    if (!f.gpu) return;
    const observed_gpu& g = *f.gpu;
    const int cc = g.major * 10 + g.minor;
    out.push_back({severity::ok,
                   fmt::format("GPU: {} ({}), {} SMs, {:.1f} GiB; {} device(s) visible", g.name, arch_name(cc),
                               g.sm_count, g.memory_bytes / double(1ull << 30), f.device_count),
                   ""});
    const auto toolkit =
        cuda_version::parse(f.build_nvcc_version).value_or(cuda_version::from_number(f.runtime_version));
    if (cc < oldest_architecture(toolkit))
        out.push_back({severity::problem,
                       fmt::format("this GPU ({}) is older than CUDA {} builds for ({} and newer)", arch_name(cc),
                                   toolkit.str(), arch_name(oldest_architecture(toolkit))),
                       fmt::format("build with a CUDA 12 toolkit, which builds for {} and newer: rm -rf build, "
                                   "then ./setup.sh with that toolkit's bin/ first on PATH",
                                   arch_name(oldest_architecture({12, 0})))});
    else if (cc > newest_architecture(toolkit))
        out.push_back({severity::problem,
                       fmt::format("this GPU ({}) is newer than CUDA {} builds for (up to {})", arch_name(cc),
                                   toolkit.str(), arch_name(newest_architecture(toolkit))),
                       "build with CUDA 12.8 or newer, which knows Blackwell: rm -rf build, then ./setup.sh with "
                       "that toolkit's bin/ first on PATH"});
    if (g.memory_bytes < (std::size_t{4} << 30))
        out.push_back({severity::note,
                       fmt::format("this GPU has {:.1f} GiB; the course's tests are sized for 4 GiB",
                                   g.memory_bytes / double(1ull << 30)),
                       "the largest tests may run out of memory here; grade them on a larger GPU"});
    if (f.build_found && cc >= oldest_architecture(toolkit) && cc <= newest_architecture(toolkit)) {
        if (compiled_for(f.build_architectures, cc))
            out.push_back({severity::ok, fmt::format("compiled for this GPU (architectures: {})", f.build_architectures),
                           ""});
        else if (const int ptx = ptx_for(f.build_architectures, cc))
            out.push_back({severity::note,
                           fmt::format("no code compiled for {} in the build ({}): its PTX for {} runs, compiled "
                                       "by the driver at the first launch",
                                       arch_name(cc), f.build_architectures, arch_name(ptx)),
                           "for this GPU's own code: cmake --preset default && cmake --build build"});
        else
            out.push_back({severity::problem,
                           fmt::format("compiled for architectures {}, but this GPU is {}", f.build_architectures,
                                       arch_name(cc)),
                           "reconfigure for this GPU: cmake --preset default && cmake --build build"});
    }
}

// WSL2 with Windows' driver: what works, and what to change.
void wsl_findings(const machine_facts& f, std::vector<finding>& out) {
    if (!f.wsl) return;
    if (!f.wsl_linux_driver_library.empty())
        out.push_back({severity::problem,
                       fmt::format("a Linux NVIDIA driver is installed inside WSL ({}): it hides the driver Windows "
                                   "passes through",
                                   f.wsl_linux_driver_library),
                       fmt::format("remove the package that put it there (`dpkg -S {}` names it, then sudo apt-get "
                                   "remove --purge PACKAGE); inside WSL install only the CUDA toolkit (NVIDIA's "
                                   "WSL-Ubuntu packages: cuda-toolkit-13-0), and the driver in Windows",
                                   f.wsl_linux_driver_library)});
    if (f.driver_version != 0)
        out.push_back({severity::ok,
                       "WSL2: the GPU comes from Windows' driver (/usr/lib/wsl/lib); grader run, watch, hint and "
                       "bench work as on Linux",
                       ""});
    if (f.on_windows_drive)
        out.push_back({severity::note,
                       "the course is on a Windows drive (/mnt/...): builds there are several times slower, and a "
                       "file saved from Windows sends no file event, so `grader watch` does not see it",
                       "clone the course into your Linux home (cd ~ && git clone ...) and open it from Windows as "
                       "\\\\wsl$\\<distro>\\home\\<you> or with VS Code's WSL extension; or regrade with Enter: "
                       "grader watch --manual"});
}

void toolkit_findings(const machine_facts& f, std::vector<finding>& out) {
    if (!f.build_found) {
        out.push_back({severity::problem, f.build_problem, "run ./setup.sh from the course's top folder"});
        return;
    }
    out.push_back({severity::ok, fmt::format("build folder: {} ({} lessons)", f.build_dir, f.lessons), ""});
    if (f.build_cmake_exists)
        out.push_back({severity::ok, fmt::format("cmake: {}", f.build_cmake), ""});
    else
        out.push_back({severity::problem, fmt::format("the build's cmake {} is gone", f.build_cmake),
                       "install cmake (3.24 or newer), then rm -rf build and run ./setup.sh"});
    if (!f.build_nvcc_exists) {
        out.push_back({severity::problem, fmt::format("the build's CUDA compiler {} is gone", f.build_nvcc),
                       "reinstall that toolkit, or rm -rf build and run ./setup.sh with the toolkit you have"});
        return;
    }
    out.push_back({severity::ok, fmt::format("CUDA compiler: {} ({})", f.build_nvcc, f.build_nvcc_version), ""});
    const auto nvcc = cuda_version::parse(f.build_nvcc_version);
    const cuda_version runtime = cuda_version::from_number(f.runtime_version);
    if (nvcc && f.runtime_version != 0 && *nvcc != runtime)
        out.push_back({severity::problem,
                       fmt::format("two toolkits are mixed: the build's nvcc is {} but its CUDA runtime is {}",
                                   nvcc->str(), runtime.str()),
                       "configure with one toolkit: rm -rf build, then ./setup.sh with that toolkit's bin/ first "
                       "on PATH (or give CMake -DCUDAToolkit_ROOT=<the folder that holds bin/nvcc>)"});
    const auto on_path = cuda_version::parse(f.path_nvcc_version);
    if (on_path && nvcc && *on_path != *nvcc)
        out.push_back({severity::note,
                       fmt::format("the nvcc on your PATH is {}, but the build uses {} ({})", on_path->str(),
                                   f.build_nvcc, nvcc->str()),
                       "the grader always builds with the build's own nvcc; to change toolkits, rm -rf build and "
                       "run ./setup.sh with the other one first on PATH"});
}

}  // namespace

std::vector<finding> diagnose(const machine_facts& facts) {
    std::vector<finding> out;
    driver_findings(facts, out);
    wsl_findings(facts, out);
    gpu_findings(facts, out);
    toolkit_findings(facts, out);
    return out;
}

void observe_wsl(const std::filesystem::path& root, machine_facts& facts) {
    namespace fs = std::filesystem;
    // WSL2's kernel names itself: "5.15.153.1-microsoft-standard-WSL2", in
    // its release and in /proc/version's first line.
    facts.wsl = false;
    for (const char* file : {"proc/sys/kernel/osrelease", "proc/version"}) {
        std::ifstream in(root / file);
        std::string text;
        std::getline(in, text);
        for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        facts.wsl = facts.wsl || text.find("microsoft") != std::string::npos || text.find("wsl") != std::string::npos;
    }
    std::error_code ec;
    facts.wsl_gpu_device = fs::exists(root / "dev/dxg", ec);
    facts.wsl_driver_library = fs::exists(root / "usr/lib/wsl/lib/libcuda.so.1", ec);
    facts.wsl_linux_driver_library.clear();
    if (!facts.wsl) return;
    // A Linux driver package's library (not a link into /usr/lib/wsl/lib).
    for (const char* lib : {"usr/lib/x86_64-linux-gnu/libcuda.so.1", "usr/lib/aarch64-linux-gnu/libcuda.so.1"}) {
        if (!fs::exists(root / lib, ec)) continue;
        const std::string target = fs::weakly_canonical(root / lib, ec).string();
        if (target.find("/usr/lib/wsl/") == std::string::npos) facts.wsl_linux_driver_library = "/" + std::string(lib);
    }
}

bool on_windows_drive(const std::filesystem::path& dir) {
    const std::string s = dir.string();
    return s.size() >= 6 && s.rfind("/mnt/", 0) == 0 && std::isalpha(static_cast<unsigned char>(s[5])) &&
           (s.size() == 6 || s[6] == '/');
}

std::vector<finding> diagnose_grading(const grading_facts& facts) {
    std::vector<finding> out;
    for (const grading_check& c : grading_checks(facts))
        out.push_back({c.ok ? severity::ok : severity::problem, c.what, c.fix});
    return out;
}

}  // namespace grader
