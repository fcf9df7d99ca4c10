#pragma once
// Whether a build's GPU code runs on a GPU: the build's
// CMAKE_CUDA_ARCHITECTURES (the manifest's "cuda_architectures": "90",
// "75-real,80-real,...,120-real,120-virtual") against the GPU's compute
// capability. A build folder configured on a login node without a GPU holds
// sm_90 only (CMakeLists.txt); graded on an A100, an L4 or a T4, every GPU
// test would fail with "no kernel image is available". `grader batch` checks
// before it grades or submits anything (cli/batch_command.cpp,
// slurm/engine.cpp).
//
// What runs, as CUDA's compatibility rules say: machine code (SASS) for
// sm_X.y runs on sm_X.z for z >= y (the same major version), except the
// architecture-specific "a" variants (sm_90a), which run on their own GPU
// only; PTX for compute_X.y is compiled by the driver for any GPU at or
// above it.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checkout/manifest.hpp"

namespace grader {

struct built_architecture {
    int arch = 0;         // 90 for sm_90
    bool sass = true;     // machine code: "-real" or a bare number
    bool ptx = true;      // PTX: "-virtual" or a bare number
    bool specific = false;  // "90a": runs on that architecture alone
};

// The entries of a CMAKE_CUDA_ARCHITECTURES list, separated by ';' (CMake)
// or ',' (the manifest). Entries without a number ("native", "all") are left out.
std::vector<built_architecture> parse_architectures(const std::string& list);

// "sm_80", "compute_80", "8.0", "80" -> 80; nullopt for anything else.
std::optional<int> parse_compute_capability(const std::string& text);

// "sm_90" for 90.
std::string sm_name(int compute_capability);

// What a build holds, in words: "machine code for sm_90", "machine code for
// sm_75, sm_80 and sm_90 and PTX for sm_90".
std::string describe_architectures(const std::string& list);

enum class gpu_fit {
    machine_code,  // SASS for it (or for an older minor version of its major)
    ptx,           // PTX at or below it: the driver compiles it at the first launch
    none,          // neither: every kernel launch fails
    unknown,       // the list says "native", "all" or nothing: no way to tell here
};
gpu_fit fit_of(const std::string& list, int compute_capability);

// Empty where the build `m` runs on a GPU of this compute capability (or its
// list cannot tell); otherwise the error that stops a batch: the GPU (`gpu`,
// "GPU 0 (NVIDIA A100-SXM4-80GB)"), what the build holds, and the fixes
// (./setup.sh --preset portable, or this build reconfigured with the
// architecture added).
std::string architecture_problem(const manifest& m, int compute_capability, const std::string& gpu);

// The fixes alone, for a warning where the GPUs are not known: "build for
// every GPU from sm_75: ./setup.sh --preset portable ...".
std::string how_to_build_for_every_gpu(const manifest& m);

}  // namespace grader
