// `grader doctor`'s conclusions, each from simulated answers: the machine
// facts a student's laptop, Colab, a cluster node or WSL2 would give.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/doctor_checks.hpp"

namespace grader {
namespace {

// A machine where everything is right: an H200 on a CUDA 13 driver, with a
// CUDA 13.0 build compiled for it.
machine_facts healthy() {
    machine_facts f;
    f.driver_version = 13000;
    f.runtime_version = 13000;
    f.device_count = 1;
    f.gpu = observed_gpu{"NVIDIA H200", 9, 0, 132, std::size_t{140} << 30};
    f.build_found = true;
    f.build_dir = "/home/student/cuda-course/build";
    f.lessons = 7;
    f.build_cmake = "/usr/bin/cmake";
    f.build_nvcc = "/usr/local/cuda-13.0/bin/nvcc";
    f.build_nvcc_version = "13.0.88";
    f.build_architectures = "native";
    f.path_nvcc_version = "13.0, V13.0.88";
    return f;
}

// The healthy machine as the runtime answers it with no GPU to count: the
// driver's version (0: none loads) and cudaGetDeviceCount's status.
machine_facts without_a_gpu(int driver_version, const std::string& status, const std::string& reason = "") {
    machine_facts f = healthy();
    f.driver_version = driver_version;
    f.device_count_status = status;
    f.device_count_reason = reason;
    f.device_count = 0;
    f.gpu.reset();
    return f;
}

int count(const std::vector<finding>& findings, severity level) {
    int n = 0;
    for (const auto& f : findings) n += f.level == level;
    return n;
}

// The one finding of `level`, whose text holds `words`; fails the test if
// there is not exactly one such finding.
finding only(const std::vector<finding>& findings, severity level, const std::string& words) {
    const finding* found = nullptr;
    int matches = 0;
    for (const auto& f : findings)
        if (f.level == level && f.what.find(words) != std::string::npos) {
            found = &f;
            ++matches;
        }
    EXPECT_EQ(matches, 1) << "findings holding \"" << words << "\"";
    return found ? *found : finding{};
}

TEST(Doctor, AHealthyMachineHasNoProblemOrNote) {
    const auto findings = diagnose(healthy());
    EXPECT_EQ(count(findings, severity::problem), 0);
    EXPECT_EQ(count(findings, severity::note), 0);
    only(findings, severity::ok, "driver runs CUDA 13.0 programs (this build: 13.0)");
    only(findings, severity::ok, "GPU: NVIDIA H200 (sm_90), 132 SMs");
    only(findings, severity::ok, "compiled for this GPU");
    only(findings, severity::ok, "build folder: /home/student/cuda-course/build (7 lessons)");
    only(findings, severity::ok, "cmake: /usr/bin/cmake");
}

TEST(Doctor, AGoneCmakeOrNvccSaysHowToRebuild) {
    machine_facts f = healthy();
    f.build_cmake_exists = false;
    f.build_nvcc_exists = false;
    const auto findings = diagnose(f);
    EXPECT_NE(only(findings, severity::problem, "the build's cmake /usr/bin/cmake is gone").fix.find("./setup.sh"),
              std::string::npos);
    EXPECT_NE(only(findings, severity::problem, "the build's CUDA compiler /usr/local/cuda-13.0/bin/nvcc is gone")
                  .fix.find("./setup.sh"),
              std::string::npos);
}

TEST(Doctor, ADriverOlderThanTheRuntimeSaysWhatItRunsAndBothFixes) {
    // Colab's T4 driver, say, with a CUDA 13 build.
    const machine_facts f = without_a_gpu(12040, "cudaErrorInsufficientDriver");
    const auto findings = diagnose(f);
    const finding d = only(findings, severity::problem, "your driver runs CUDA 12.4 programs; this build needs 13.0");
    EXPECT_NE(d.fix.find("build with CUDA 12"), std::string::npos) << d.fix;
    EXPECT_NE(d.fix.find("update the driver (CUDA 13 needs the 580 driver or newer)"), std::string::npos) << d.fix;
    // The device count's failure is a consequence, not a second problem.
    EXPECT_EQ(count(findings, severity::problem), 1);
}

TEST(Doctor, AnOlderMinorVersionRunsByCompatibilityAndIsANote) {
    machine_facts f = healthy();
    f.driver_version = 12020;
    f.runtime_version = 12040;
    f.build_nvcc_version = "12.4.131";
    f.path_nvcc_version = "12.4, V12.4.131";
    const auto findings = diagnose(f);
    EXPECT_EQ(count(findings, severity::problem), 0);
    const finding n = only(findings, severity::note, "minor-version compatibility");
    EXPECT_NE(n.what.find("CUDA 12.2 programs and this build is 12.4"), std::string::npos) << n.what;
}

TEST(Doctor, AGpuTheToolkitNoLongerBuildsForNamesTheOldestAndCuda12) {
    machine_facts f = healthy();
    f.gpu = observed_gpu{"Tesla P100-PCIE-16GB", 6, 0, 56, std::size_t{16} << 30};
    f.build_architectures = "native";
    const auto findings = diagnose(f);
    const finding p = only(findings, severity::problem, "this GPU (sm_60) is older than CUDA 13.0 builds for (sm_75 and newer)");
    EXPECT_NE(p.fix.find("build with a CUDA 12 toolkit, which builds for sm_50 and newer"), std::string::npos) << p.fix;
    // No "compiled for this GPU" claim about a GPU the compiler cannot target.
    EXPECT_EQ(count(findings, severity::problem), 1);
    for (const auto& x : findings) EXPECT_EQ(x.what.find("compiled for"), std::string::npos) << x.what;
}

TEST(Doctor, AGpuNewerThanTheToolkitAsksForCuda128) {
    machine_facts f = healthy();
    f.runtime_version = 12040;
    f.build_nvcc_version = "12.4.131";
    f.path_nvcc_version = "12.4, V12.4.131";
    f.gpu = observed_gpu{"NVIDIA GeForce RTX 5090", 12, 0, 170, std::size_t{32} << 30};
    const auto findings = diagnose(f);
    const finding p = only(findings, severity::problem, "this GPU (sm_120) is newer than CUDA 12.4 builds for (up to sm_90)");
    EXPECT_NE(p.fix.find("CUDA 12.8 or newer"), std::string::npos) << p.fix;
}

TEST(Doctor, WslWithoutTheGpuPassedThroughSaysToInstallTheWindowsDriver) {
    machine_facts f = without_a_gpu(0, "cudaErrorInsufficientDriver");
    f.wsl = true;
    f.wsl_gpu_device = false;
    const auto findings = diagnose(f);
    const finding p = only(findings, severity::problem, "WSL2 without a GPU: /dev/dxg is missing");
    EXPECT_NE(p.fix.find("in Windows, install the current NVIDIA driver"), std::string::npos) << p.fix;
    EXPECT_NE(p.fix.find("wsl --update"), std::string::npos) << p.fix;
    EXPECT_EQ(count(findings, severity::problem), 1);

    f.wsl_gpu_device = true;  // the GPU is passed through, its library is not
    only(diagnose(f), severity::problem, "WSL2 has the GPU (/dev/dxg) but not its CUDA library");
    f.wsl_driver_library = true;  // both there, yet no driver loads
    only(diagnose(f), severity::problem, "no CUDA driver loads");
}

TEST(Doctor, NoGpuAtAllSaysNothingIsGradedHere) {
    const auto findings = diagnose(without_a_gpu(0, "cudaErrorInsufficientDriver"));
    const finding p = only(findings, severity::problem, "no NVIDIA driver: there is no GPU here to grade on");
    EXPECT_NE(p.fix.find("only the tests that need no GPU are graded"), std::string::npos) << p.fix;
    EXPECT_EQ(count(findings, severity::problem), 1);
}

TEST(Doctor, ADriverThatSeesNoGpuNamesTheStatusAndCudaVisibleDevices) {
    const machine_facts f = without_a_gpu(13000, "cudaErrorNoDevice", "no CUDA-capable GPU is visible");
    const finding p = only(diagnose(f), severity::problem, "the driver is loaded but finds no GPU to use: cudaErrorNoDevice");
    EXPECT_NE(p.fix.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << p.fix;
}

TEST(Doctor, NvccAndRuntimeFromTwoToolkitsAreAProblem) {
    machine_facts f = healthy();
    f.build_nvcc = "/usr/local/cuda-12.4/bin/nvcc";
    f.build_nvcc_version = "12.4.131";  // the compiler of one toolkit, the runtime of another
    const finding p = only(diagnose(f), severity::problem,
                           "two toolkits are mixed: the build's nvcc is 12.4 but its CUDA runtime is 13.0");
    EXPECT_NE(p.fix.find("CUDAToolkit_ROOT"), std::string::npos) << p.fix;
}

TEST(Doctor, AnotherNvccOnPathIsANote) {
    machine_facts f = healthy();
    f.path_nvcc_version = "12.4, V12.4.131";
    const auto findings = diagnose(f);
    EXPECT_EQ(count(findings, severity::problem), 0);
    only(findings, severity::note, "the nvcc on your PATH is 12.4, but the build uses /usr/local/cuda-13.0/bin/nvcc (13.0)");
}

TEST(Doctor, ABuildWithoutThisGpusCodeSaysSoOrRunsItsPtx) {
    machine_facts f = healthy();
    f.gpu = observed_gpu{"Tesla T4", 7, 5, 40, std::size_t{15} << 30};
    f.build_architectures = "90-real";
    only(diagnose(f), severity::problem, "compiled for architectures 90-real, but this GPU is sm_75");

    f.build_architectures = "75-real;80-real;86-real;89-real;90-real;100-real;120-real;120-virtual";
    only(diagnose(f), severity::ok, "compiled for this GPU");
    // As the build's manifest writes the list: commas. The GPU's entry is not the first.
    f.build_architectures = "75-real,80-real,86-real,89-real,90-real,100-real,120-real,120-virtual";
    f.gpu = observed_gpu{"NVIDIA H200", 9, 0, 132, std::size_t{140} << 30};
    only(diagnose(f), severity::ok, "compiled for this GPU");

    f.gpu = observed_gpu{"NVIDIA GB10", 12, 1, 48, std::size_t{119} << 30};  // sm_121: the portable build's PTX
    const finding n = only(diagnose(f), severity::note, "its PTX for sm_120 runs");
    EXPECT_NE(n.what.find("no code compiled for sm_121"), std::string::npos) << n.what;
}

TEST(Doctor, ASmallGpuIsANoteAboutTheFourGibibyteSizing) {
    machine_facts f = healthy();
    f.gpu = observed_gpu{"NVIDIA GeForce GTX 1650", 7, 5, 14, std::size_t{3} << 30};
    only(diagnose(f), severity::note, "this GPU has 3.0 GiB; the course's tests are sized for 4 GiB");
}

TEST(Doctor, NoBuildFolderSaysToRunSetup) {
    machine_facts f = healthy();
    f.build_found = false;
    f.build_problem = "build is not a configured build folder";
    const finding p = only(diagnose(f), severity::problem, "not a configured build folder");
    EXPECT_NE(p.fix.find("./setup.sh"), std::string::npos);
}

TEST(Doctor, CudaVersionsParseAndCompare) {
    EXPECT_EQ(cuda_version::from_number(12040).str(), "12.4");
    EXPECT_EQ(cuda_version::parse("13.0.88")->str(), "13.0");
    EXPECT_EQ(cuda_version::parse("release 12.8, V12.8.93")->str(), "12.8");
    EXPECT_FALSE(cuda_version::parse("no version here"));
    EXPECT_TRUE((cuda_version{12, 9} < cuda_version{13, 0}));
    EXPECT_EQ(oldest_architecture({13, 0}), 75);
    EXPECT_EQ(oldest_architecture({12, 4}), 50);
    EXPECT_EQ(newest_architecture({12, 4}), 90);
    EXPECT_EQ(newest_architecture({12, 8}), 120);
}

TEST(Doctor, WslIsReadFromTheKernelReleaseAndTheDeviceFiles) {
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("doctor-wsl-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::remove_all(root);
    fs::create_directories(root / "proc/sys/kernel");
    std::ofstream(root / "proc/sys/kernel/osrelease") << "6.8.0-49-generic\n";
    machine_facts f;
    observe_wsl(root, f);
    EXPECT_FALSE(f.wsl);

    std::ofstream(root / "proc/sys/kernel/osrelease") << "5.15.167.4-microsoft-standard-WSL2\n";
    observe_wsl(root, f);
    EXPECT_TRUE(f.wsl);
    EXPECT_FALSE(f.wsl_gpu_device);
    EXPECT_FALSE(f.wsl_driver_library);

    fs::create_directories(root / "dev");
    std::ofstream(root / "dev/dxg");
    fs::create_directories(root / "usr/lib/wsl/lib");
    std::ofstream(root / "usr/lib/wsl/lib/libcuda.so.1");
    observe_wsl(root, f);
    EXPECT_TRUE(f.wsl_gpu_device);
    EXPECT_TRUE(f.wsl_driver_library);
    EXPECT_EQ(f.wsl_linux_driver_library, "");

    // A link into /usr/lib/wsl/lib is Windows' library; a file of its own is a Linux driver's.
    fs::create_directories(root / "usr/lib/x86_64-linux-gnu");
    fs::create_symlink(root / "usr/lib/wsl/lib/libcuda.so.1", root / "usr/lib/x86_64-linux-gnu/libcuda.so.1");
    observe_wsl(root, f);
    EXPECT_EQ(f.wsl_linux_driver_library, "");
    fs::remove(root / "usr/lib/x86_64-linux-gnu/libcuda.so.1");
    std::ofstream(root / "usr/lib/x86_64-linux-gnu/libcuda.so.1");
    observe_wsl(root, f);
    EXPECT_EQ(f.wsl_linux_driver_library, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");

    // A kernel that names WSL only in /proc/version.
    std::ofstream(root / "proc/sys/kernel/osrelease") << "6.6.36.6-custom\n";
    std::ofstream(root / "proc/version") << "Linux version 6.6.36.6-custom (gcc) #1 SMP Microsoft WSL\n";
    observe_wsl(root, f);
    EXPECT_TRUE(f.wsl);
    fs::remove_all(root);
}

TEST(Doctor, WslWithWindowsDriverSaysWhatWorksAndNamesALinuxDriverInside) {
    machine_facts f = healthy();
    f.wsl = f.wsl_gpu_device = f.wsl_driver_library = true;
    auto findings = diagnose(f);
    EXPECT_EQ(count(findings, severity::problem), 0);
    only(findings, severity::ok, "WSL2: the GPU comes from Windows' driver (/usr/lib/wsl/lib); grader run, watch, hint "
                                 "and bench work");

    f.wsl_linux_driver_library = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
    const finding p = only(diagnose(f), severity::problem, "a Linux NVIDIA driver is installed inside WSL");
    EXPECT_NE(p.fix.find("dpkg -S /usr/lib/x86_64-linux-gnu/libcuda.so.1"), std::string::npos) << p.fix;
    EXPECT_NE(p.fix.find("WSL-Ubuntu"), std::string::npos) << p.fix;
}

TEST(Doctor, ACourseOnAWindowsDriveSaysWatchNeedsManualOrALinuxHome) {
    EXPECT_TRUE(on_windows_drive("/mnt/c/Users/ada/cuda-course"));
    EXPECT_TRUE(on_windows_drive("/mnt/d"));
    EXPECT_FALSE(on_windows_drive("/mnt/data/course"));
    EXPECT_FALSE(on_windows_drive("/home/ada/cuda-course"));
    machine_facts f = healthy();
    f.wsl = f.wsl_gpu_device = f.wsl_driver_library = true;
    f.on_windows_drive = true;
    const finding n = only(diagnose(f), severity::note, "the course is on a Windows drive");
    EXPECT_NE(n.fix.find("grader watch --manual"), std::string::npos) << n.fix;
    EXPECT_NE(n.fix.find("Linux home"), std::string::npos) << n.fix;
}

TEST(Doctor, GradingChecksAreOneLineEachAndAMissingOneIsAProblem) {
    grading_facts facts;
    facts.bubblewrap = {std::filesystem::path("/usr/bin/bwrap"), ""};
    facts.compute_sanitizer = "/usr/local/cuda/bin/compute-sanitizer";
    facts.ncu = std::nullopt;  // a toolkit installed without Nsight Compute
    facts.counters_for_admins_only = false;
    facts.reads_device_code = true;
    facts.refuses_processes = true;
    facts.build_known = true;
    facts.gpu_recorder = "/tmp/x.so";
    facts.gpu_recorder_built = true;
    facts.threads_only_launcher = "/tmp/course-threads-only";
    facts.threads_only_launcher_built = true;
    facts.toolkit_version = "12.8.93";
    const auto findings = diagnose_grading(facts);
    EXPECT_EQ(findings.size(), 6u);
    EXPECT_EQ(count(findings, severity::problem), 1);
    const finding p = only(findings, severity::problem, "ncu (Nsight Compute) not found");
    EXPECT_NE(p.fix.find("cuda-nsight-compute-12-8"), std::string::npos) << p.fix;
    for (const auto& f : findings) EXPECT_EQ(f.what.find('\n'), std::string::npos) << f.what;
}

}  // namespace
}  // namespace grader
