#pragma once
// What Nsight Compute measured of one kernel launch: one row of a test's
// profile (kernel_metrics.hpp reads them from ncu; the report prints them).
// A figure ncu did not give is negative: "not measured", never 0.
#include <string>

namespace grader {

struct kernel_measure {
    std::string kernel;   // "lesson07::matmul_tiled_kernel": demangled, no parameters
    std::string mangled;  // as compiled: how cuobjdump names it
    std::string origin;  // "yours", "test" (the grader's own), "library" (neither)
    std::string block, grid;  // as ncu prints them: "(32, 8, 1)"
    double time_ns = -1;
    double dram_pct = -1;  // DRAM throughput, % of this GPU's peak
    double sm_pct = -1;    // the busiest SM unit, % of its peak
    // Of each 32-byte sector global loads (stores) fetch, the share the
    // threads use: 100% when a warp's accesses are coalesced.
    double load_sector_use_pct = -1, store_sector_use_pct = -1;
    double load_requests = -1, store_requests = -1;  // global loads (stores) issued by warps
    // Of the shared-memory wavefronts, the share that bank conflicts added.
    double shared_conflict_pct = -1;
    double achieved_occupancy_pct = -1, theoretical_occupancy_pct = -1;
    std::string occupancy_limit;  // what caps the theoretical occupancy, where it is under 100%
    int registers_per_thread = -1;
    double shared_bytes_per_block = -1;
    double local_instructions = -1;  // loads and stores of local memory (spilled registers, arrays indexed at run time)
    double instructions = -1;        // every warp instruction
    double waves = -1;               // the grid, in full loads of the GPU's SMs
};

}  // namespace grader
