#pragma once
// A profile of a test's kernels with Nsight Compute, in plain words: a
// handful of hardware metrics per kernel (kernel_measure.hpp) and, for a
// slow test, the cause they show and the one change most likely to help.
//
// The rules name a cause only on strong evidence (most of each fetched
// sector wasted, most shared-memory wavefronts replayed, local-memory traffic
// in the inner loop, a GPU left mostly idle by too few warps); otherwise the
// figures are shown and no cause is named: a wrong explanation is worse than
// none.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/kernel_measure.hpp"

namespace grader {

// The metrics asked of ncu (names as `ncu --query-metrics` lists them for
// Hopper with CUDA 13; launch__* describe the launch itself).
const std::vector<std::string>& profile_metric_names();

// The arguments that put a program under ncu for a profile: those metrics,
// the first launch of each kernel launch shape (name, grid, block, shared
// memory: --filter-mode per-launch-config) so that a benchmark's repetitions
// cost nothing, with clocks and caches as ncu sets them (base clocks, caches
// flushed) so that two profiles compare.
std::vector<std::string> profile_command(const std::filesystem::path& ncu, const std::filesystem::path& csv_file);

// ncu's --csv output (its "details" page: a row per kernel and metric) as
// one measure per kernel launch, in launch order.
std::vector<kernel_measure> parse_kernel_metrics(const std::string& csv_text);

// "_ZN8lesson0719matmul_tiled_kernelEN6course..." -> "lesson07::matmul_tiled_kernel".
std::string short_kernel_name(const std::string& mangled);

// Where each kernel came from: "yours" where it is compiled into the
// student's library, "test" where into the test program, else "library".
// With a student's library that holds no kernels (a lesson that compiles
// them at run time with NVRTC, or an unfinished skeleton), nothing is
// called a library's: the origin is left empty, unknown.
void attribute_kernels(std::vector<kernel_measure>& kernels, const std::map<std::string, std::string>& own,
                       const std::map<std::string, std::string>& test_program);

struct kernel_finding {
    std::string kernel;    // short name
    std::string evidence;  // what was measured
    std::string change;    // the one change most likely to help
};

// What the profile of a slow test shows, strongest evidence first, at most
// `most` findings (each about a different kernel); empty when no rule has
// strong evidence.
std::vector<kernel_finding> explain_slow_kernels(const std::vector<kernel_measure>& kernels, std::size_t most = 2);

// The message that leads a slow test's messages: the findings, or where
// there are none, the headline figures and that no single cause stands out.
std::string profile_message(const std::vector<kernel_measure>& kernels, const std::vector<kernel_finding>& findings);

}  // namespace grader
