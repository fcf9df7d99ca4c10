#pragma once
// What `grader doctor` concludes from what it observed about the machine.
//
// The observing (the CUDA runtime's answers, /proc, the build's manifest) and
// the concluding are apart, so that every conclusion can be tested with
// simulated answers: a driver older than the build's runtime, a GPU the
// toolkit no longer builds for, WSL2 without the GPU passed through, no GPU
// at all, and a toolkit whose nvcc and runtime disagree.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/grading_needs.hpp"

namespace grader {

// A CUDA version as the runtime gives it: 12040 is 12.4.
struct cuda_version {
    int major = 0, minor = 0;
    static cuda_version from_number(int number) { return {number / 1000, number % 1000 / 10}; }
    // "13.0.88" or "12.4" -> {13, 0}; nullopt when the text holds no version.
    static std::optional<cuda_version> parse(const std::string& text);
    std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
    friend bool operator<(cuda_version a, cuda_version b) {
        return a.major != b.major ? a.major < b.major : a.minor < b.minor;
    }
    friend bool operator==(cuda_version a, cuda_version b) = default;
};

struct observed_gpu {
    std::string name;
    int major = 0, minor = 0;  // compute capability
    int sm_count = 0;
    std::size_t memory_bytes = 0;
};

// Everything the doctor looks at, as plain answers.
struct machine_facts {
    int driver_version = 0;   // cudaDriverGetVersion: 0 when no driver library loads
    int runtime_version = 0;  // cudaRuntimeGetVersion: the runtime this grader was built with
    std::string device_count_status;  // cudaGetDeviceCount's error name; empty when it succeeded
    std::string device_count_reason;  // and what that usually means
    int device_count = 0;
    std::optional<observed_gpu> gpu;  // device 0, when there is one
    bool wsl = false;                 // the kernel is WSL2's (Microsoft's)
    bool wsl_gpu_device = false;      // /dev/dxg: Windows passes a GPU through
    bool wsl_driver_library = false;  // /usr/lib/wsl/lib/libcuda.so.1: its CUDA driver library
    // A Linux driver's libcuda.so.1 installed inside WSL2, which hides Windows' own.
    std::string wsl_linux_driver_library;
    bool on_windows_drive = false;    // the course is on a Windows drive (/mnt/c/...)
    // The build, when there is one.
    bool build_found = false;
    std::string build_problem;        // why not, when !build_found
    std::string build_dir;            // where it is
    std::size_t lessons = 0;          // how many lessons it holds
    std::string build_cmake;          // the cmake it was configured with
    bool build_cmake_exists = true;
    std::string build_nvcc;           // the CUDA compiler the build was configured with
    std::string build_nvcc_version;   // its version, "13.0.88"
    std::string build_architectures;  // CMAKE_CUDA_ARCHITECTURES, "native" or "75-real;...;120"
    bool build_nvcc_exists = true;
    std::string path_nvcc_version;    // `nvcc --version` of the nvcc on PATH; empty when none
};

enum class severity { ok, note, problem };

struct finding {
    severity level = severity::ok;
    std::string what;
    std::string fix;  // for a note or a problem: what to do
};

std::vector<finding> diagnose(const machine_facts& facts);

// The oldest and newest compute capability a CUDA toolkit can build for, as
// major * 10 + minor: CUDA 13 dropped everything before Turing (sm_75);
// CUDA 12 builds for sm_50 on, and for Blackwell (sm_100, sm_120) from 12.8.
int oldest_architecture(cuda_version toolkit);
int newest_architecture(cuda_version toolkit);

// The WSL2 facts, read under `root` (the real machine: "/"; a test: a folder
// laid out like one): WSL's kernel names itself in /proc/sys/kernel/osrelease
// and /proc/version ("microsoft", "WSL").
void observe_wsl(const std::filesystem::path& root, machine_facts& facts);

// Whether `dir` is on a Windows drive as WSL shows it (/mnt/c/...).
bool on_windows_drive(const std::filesystem::path& dir);

// `grader doctor --grading`: one finding per need of a graded run and a
// batch (run/grading_needs.hpp), each missing one a problem with its fix.
std::vector<finding> diagnose_grading(const grading_facts& facts);

}  // namespace grader
