#include "evidence/kernel_metrics.hpp"
#include "report/kernel_table.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>

#include "evidence/kernel_profile.hpp"

namespace fs = std::filesystem;

namespace grader {

namespace {

// The figures below which (or above which) a rule names a cause. Each is far
// from what the course's solutions measure on an H200 (in brackets), so that
// a kernel written the intended way is never blamed.
constexpr double wasted_sector_below_pct = 50;   // a warp's accesses scattered (solutions: 82 to 100%)
// Loads or stores that are this small a share of a kernel's global accesses
// cost nothing worth naming, however scattered: a reduction's one store per
// block uses 12% of its sector.
constexpr double minor_access_share_pct = 10;
constexpr double conflict_share_above_pct = 30;  // bank-conflict replays (solutions: under 7%)
constexpr double local_share_above_pct = 0.5;    // local-memory instructions (solutions: 0)
constexpr double idle_below_pct = 40;            // DRAM and SM both this idle: too little parallel work
constexpr double low_occupancy_below_pct = 30;
// A kernel that takes this small a share of the test's kernel time is not
// where the time went (a reduction's last, one-block pass, say).
constexpr double minor_time_share_pct = 10;

const std::vector<std::string> metric_names = {
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__waves_per_multiprocessor",
    "smsp__sass_inst_executed_op_local_ld.sum",
    "smsp__sass_inst_executed_op_local_st.sum",
    "smsp__inst_executed.sum",
};

// One launch's metrics by name, and the launch's own columns.
struct launch_rows {
    std::string mangled, block, grid;
    std::map<std::string, double> metric;
    double get(const std::string& name, double missing = -1) const {
        const auto it = metric.find(name);
        return it == metric.end() ? missing : it->second;
    }
    bool has(const std::string& name) const { return metric.count(name) > 0; }
};

double sum_if_any(const launch_rows& r, const std::string& a, const std::string& b) {
    if (!r.has(a) && !r.has(b)) return -1;
    return std::max(0.0, r.get(a, 0)) + std::max(0.0, r.get(b, 0));
}

kernel_measure measure_of(const launch_rows& r) {
    kernel_measure m;
    m.mangled = r.mangled;
    m.kernel = short_kernel_name(r.mangled);
    m.block = r.block;
    m.grid = r.grid;
    m.time_ns = r.get("gpu__time_duration.sum");
    m.dram_pct = r.get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
    m.sm_pct = r.get("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    m.load_requests = r.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    m.store_requests = r.get("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    // A sector use of a kernel that issued no such access means nothing.
    if (m.load_requests != 0)
        m.load_sector_use_pct = r.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
    if (m.store_requests != 0)
        m.store_sector_use_pct = r.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct");
    const double wavefronts = sum_if_any(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum");
    const double conflicts = sum_if_any(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
    if (wavefronts > 0 && conflicts >= 0) m.shared_conflict_pct = 100 * std::min(conflicts, wavefronts) / wavefronts;
    m.achieved_occupancy_pct = r.get("sm__warps_active.avg.pct_of_peak_sustained_active");
    m.theoretical_occupancy_pct = r.get("sm__maximum_warps_per_active_cycle_pct");
    if (m.theoretical_occupancy_pct >= 0 && m.theoretical_occupancy_pct < 100) {
        // Each limit is the blocks per SM it allows; the smallest one binds.
        const std::pair<const char*, const char*> limits[] = {
            {"launch__occupancy_limit_registers", "registers per thread"},
            {"launch__occupancy_limit_shared_mem", "shared memory per block"},
            {"launch__occupancy_limit_warps", "threads per block"},
            {"launch__occupancy_limit_blocks", "blocks per SM"}};
        double least = -1;
        for (const auto& [metric, what] : limits) {
            const double blocks = r.get(metric);
            if (blocks >= 0 && (least < 0 || blocks < least)) least = blocks, m.occupancy_limit = what;
        }
    }
    if (const double regs = r.get("launch__registers_per_thread"); regs >= 0) m.registers_per_thread = static_cast<int>(regs);
    m.shared_bytes_per_block = sum_if_any(r, "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic");
    m.local_instructions = sum_if_any(r, "smsp__sass_inst_executed_op_local_ld.sum",
                                      "smsp__sass_inst_executed_op_local_st.sum");
    m.instructions = r.get("smsp__inst_executed.sum");
    m.waves = r.get("launch__waves_per_multiprocessor");
    return m;
}

// What the rules may judge: the student's kernels, or, where the origin is
// unknown (kernels compiled at run time), every kernel; never the test's own
// or a library's.
bool judged(const kernel_measure& k) { return k.origin == "yours" || k.origin.empty(); }

std::optional<kernel_finding> spills(const kernel_measure& k) {
    if (k.local_instructions <= 0) return std::nullopt;
    const double share = k.instructions > 0 ? 100 * k.local_instructions / k.instructions : -1;
    if (share >= 0 && share < local_share_above_pct) return std::nullopt;
    return kernel_finding{
        k.kernel,
        share >= 0 ? fmt::format("{} of its instructions load or store local memory: registers spilled to local memory, or an "
                                 "array indexed at run time (local memory is as slow as global memory)",
                                 percent_figure(share))
                   : fmt::format("{:.0f} of its warp instructions load or store local memory: registers spilled to local memory, "
                                 "or an array indexed at run time",
                                 k.local_instructions),
        "keep per-thread arrays in registers: index them only with numbers the compiler knows (fully unrolled loops), "
        "and check `-Xptxas -v` for spill stores"};
}

// Whether `requests` are more than a minor share of all global accesses
// (unknown counts: assume they are).
bool major_share(double requests, double other) {
    if (requests < 0 || other < 0 || requests + other == 0) return true;
    return 100 * requests / (requests + other) >= minor_access_share_pct;
}

std::optional<kernel_finding> uncoalesced(const kernel_measure& k) {
    const bool loads = k.load_sector_use_pct >= 0 && k.load_sector_use_pct < wasted_sector_below_pct &&
                       major_share(k.load_requests, k.store_requests);
    const bool stores = k.store_sector_use_pct >= 0 && k.store_sector_use_pct < wasted_sector_below_pct &&
                        major_share(k.store_requests, k.load_requests);
    if (!loads && !stores) return std::nullopt;
    const double use = loads && stores ? std::min(k.load_sector_use_pct, k.store_sector_use_pct)
                       : loads         ? k.load_sector_use_pct
                                       : k.store_sector_use_pct;
    return kernel_finding{
        k.kernel,
        fmt::format("its global {} use {} of each 32-byte sector they move ({:.0f} of 32 bytes): the threads of a warp "
                    "touch addresses far apart, so the accesses are not coalesced",
                    loads && stores ? "loads and stores" : loads ? "loads" : "stores", percent_figure(use), 32 * use / 100),
        "make consecutive threads of a warp touch consecutive elements (threadIdx.x should step through the fastest-"
        "changing index)"};
}

std::optional<kernel_finding> bank_conflicts(const kernel_measure& k) {
    if (k.shared_conflict_pct < conflict_share_above_pct) return std::nullopt;
    const double ways = k.shared_conflict_pct >= 99.9 ? 32 : 100 / (100 - k.shared_conflict_pct);
    return kernel_finding{
        k.kernel,
        fmt::format("{} of its shared-memory wavefronts are replays caused by bank conflicts (about {:.0f}-way on "
                    "average): the threads of a warp hit the same bank at different addresses",
                    percent_figure(k.shared_conflict_pct), ways),
        "make a warp's 32 threads read 32 different banks: let threadIdx.x index the last (contiguous) dimension of "
        "the shared array, or pad each row by one element"};
}

std::optional<kernel_finding> too_little_work(const kernel_measure& k) {
    if (k.dram_pct < 0 || k.sm_pct < 0 || k.dram_pct >= idle_below_pct || k.sm_pct >= idle_below_pct)
        return std::nullopt;
    const std::string busy = fmt::format("DRAM at {} and the SMs at {} of their peak", percent_figure(k.dram_pct), percent_figure(k.sm_pct));
    if (k.waves >= 0 && k.waves < 1)
        return kernel_finding{k.kernel,
                              fmt::format("its grid {} fills only {} of what the GPU's SMs can run at once ({})",
                                          k.grid, percent_figure(100 * k.waves), busy),
                              "launch more blocks: give each block less work, so that the grid covers every SM"};
    if (k.achieved_occupancy_pct >= 0 && k.achieved_occupancy_pct < low_occupancy_below_pct) {
        std::string why = k.occupancy_limit.empty()
                              ? std::string()
                              : fmt::format(" (at most {}, limited by {})", percent_figure(k.theoretical_occupancy_pct), k.occupancy_limit);
        std::string change = "keep more warps resident: ";
        if (k.occupancy_limit == "registers per thread")
            change += fmt::format("use fewer registers per thread (it uses {}; __launch_bounds__ sets a limit)",
                                  k.registers_per_thread);
        else if (k.occupancy_limit == "shared memory per block")
            change += fmt::format("use less shared memory per block (it uses {:.0f} bytes)", k.shared_bytes_per_block);
        else if (k.occupancy_limit == "threads per block" || k.occupancy_limit == "blocks per SM")
            change += fmt::format("use larger blocks (it runs {}; 128 to 256 threads is the usual size)", k.block);
        else
            change += "launch more blocks, or more threads per block";
        return kernel_finding{k.kernel,
                              fmt::format("only {} of the warps an SM can hold are active{} ({})",
                                          percent_figure(k.achieved_occupancy_pct), why, busy),
                              change};
    }
    return std::nullopt;
}

}  // namespace

const std::vector<std::string>& profile_metric_names() { return metric_names; }

std::vector<std::string> profile_command(const fs::path& ncu, const fs::path& csv_file) {
    std::string metrics;
    for (const auto& m : metric_names) metrics += (metrics.empty() ? "" : ",") + m;
    return {ncu.string(),         "--csv",          "--page",           "details",
            "--metrics",          metrics,          "--print-units",    "base",
            "--print-kernel-base", "mangled",       "--filter-mode",    "per-launch-config",
            "--launch-count",     "1",              "--log-file",       csv_file.string()};
}

std::string short_kernel_name(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                          &std::free);
    std::string name = status == 0 && demangled ? demangled.get() : mangled;
    // "void ns::f<int>(args)" -> "ns::f<int>": the parameters, after the
    // template arguments' last '>', go; a template's return type too.
    int depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') ++depth;
        if (name[i] == '>') --depth;
        if (name[i] == '(' && depth == 0 && i > 0) {
            name.resize(i);
            break;
        }
    }
    if (name.rfind("void ", 0) == 0) name.erase(0, 5);
    return name;
}

std::vector<kernel_measure> parse_kernel_metrics(const std::string& csv_text) {
    std::map<std::string, launch_rows> by_id;
    std::vector<std::string> order;
    for (const auto& row : ncu_csv_rows(csv_text)) {
        const std::string& id = field_of(row, "ID");
        if (id.empty()) continue;  // a page without launch IDs is not the details page
        if (!by_id.count(id)) {
            order.push_back(id);
            by_id[id] = {field_of(row, "Kernel Name"), field_of(row, "Block Size"), field_of(row, "Grid Size"), {}};
        }
        if (const auto v = ncu_number(field_of(row, "Metric Value"))) by_id[id].metric[field_of(row, "Metric Name")] = *v;
    }
    std::vector<kernel_measure> kernels;
    for (const auto& id : order) kernels.push_back(measure_of(by_id[id]));
    return kernels;
}

void attribute_kernels(std::vector<kernel_measure>& kernels, const std::map<std::string, std::string>& own,
                       const std::map<std::string, std::string>& test_program) {
    for (auto& k : kernels) {
        if (own.count(k.mangled)) k.origin = "yours";
        else if (test_program.count(k.mangled)) k.origin = "test";
        else k.origin = own.empty() ? "" : "library";
    }
}

std::vector<kernel_finding> explain_slow_kernels(const std::vector<kernel_measure>& kernels, std::size_t most) {
    // The longest-running kernels first: that is where the time went.
    std::vector<const kernel_measure*> ranked;
    for (const auto& k : kernels)
        if (judged(k)) ranked.push_back(&k);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const kernel_measure* a, const kernel_measure* b) { return a->time_ns > b->time_ns; });
    double total_ns = 0;
    for (const kernel_measure* k : ranked) total_ns += std::max(0.0, k->time_ns);
    std::vector<kernel_finding> findings;
    std::set<std::string> named;
    for (const kernel_measure* k : ranked) {
        if (findings.size() == most) break;
        if (named.count(k->kernel)) continue;
        if (k->time_ns >= 0 && total_ns > 0 && 100 * k->time_ns / total_ns < minor_time_share_pct) continue;
        // One cause per kernel, in the order of how surely it costs time.
        for (const auto& rule : {spills, uncoalesced, bank_conflicts, too_little_work})
            if (auto f = rule(*k)) {
                findings.push_back(*f);
                named.insert(k->kernel);
                break;
            }
    }
    return findings;
}

std::string profile_message(const std::vector<kernel_measure>& kernels, const std::vector<kernel_finding>& findings) {
    const bool any_judged = std::any_of(kernels.begin(), kernels.end(), judged);
    if (!any_judged) {
        if (kernels.empty())
            return "Nsight Compute saw no kernel run during this test: either the work was done without one (on the "
                   "host, or by copies), or no launch succeeded";
        std::vector<std::string> names;
        for (const auto& k : kernels)
            if (k.origin == "library") names.push_back(k.kernel);
        if (names.empty())
            return "Nsight Compute saw no kernel of yours run during this test (only the test's own): either the work "
                   "was done without one, or no launch of yours succeeded";
        return fmt::format("Nsight Compute saw no kernel compiled into your code run during this test, only {}: a "
                           "library's kernels, or kernels compiled at run time",
                           fmt::join(names, ", "));
    }
    if (findings.empty()) {
        std::vector<std::string> figures;
        for (const auto& k : kernels)
            if (judged(k))
                figures.push_back(fmt::format("{}: {}, DRAM {} of peak, SMs {}, occupancy {}", k.kernel, duration_figure(k.time_ns),
                                              percent_figure(k.dram_pct), percent_figure(k.sm_pct), percent_figure(k.achieved_occupancy_pct)));
        return fmt::format("Nsight Compute measured {}; none of the usual causes stands out (accesses coalesced, no bank "
                           "conflicts, no local memory, enough warps)",
                           fmt::join(figures, "; "));
    }
    std::vector<std::string> parts;
    for (const auto& f : findings)
        parts.push_back(fmt::format("{}: {}. The change most likely to help: {}", f.kernel, f.evidence, f.change));
    return "Nsight Compute: " + fmt::format("{}", fmt::join(parts, ".\nNsight Compute: "));
}

}  // namespace grader
