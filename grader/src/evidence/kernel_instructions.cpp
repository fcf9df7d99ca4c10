#include "evidence/kernel_instructions.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <thread>

#include "system/process.hpp"

namespace grader {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// An opcode without its modifiers ("STG.E.128" -> "STG").
bool may_touch_shared_memory(std::string_view op) {
    // Shared memory's own instructions: loads and stores (LDSM and STSM the
    // matrix ones), atomics, the asynchronous copies into it (cp.async,
    // the Tensor Memory Accelerator's), the warpgroup MMA that reads its
    // operands from it, and the mbarriers that live in it.
    for (std::string_view prefix : {"LDS", "STS", "ATOMS", "LDGSTS", "UTMA", "UBLK", "HGMMA", "SYNCS"})
        if (starts_with(op, prefix)) return true;
    // Generic loads and stores reach whichever memory their address is in.
    return op == "LD" || op == "ST" || op == "ATOM" || op == "RED";
}

bool synchronizes(std::string_view op) {
    // __syncthreads and named barriers, __syncwarp, the warp-synchronous
    // intrinsics with a mask (shfl, vote, match, reduce), their emulation in
    // divergent code (ENDCOLLECTIVE), warpgroup arrival, elect, mbarriers.
    // Not BSSY and BSYNC: the compiler's own reconvergence points.
    for (std::string_view prefix :
         {"BAR", "WARPSYNC", "SHFL", "VOTE", "MATCH", "REDUX", "ENDCOLLECTIVE", "WARPGROUP", "ELECT", "SYNCS"})
        if (starts_with(op, prefix)) return true;
    return false;
}

// "        /*0040*/              @!P0 LDG.E R2, desc[UR4][R2.64] ;  /* 0x... */" -> "LDG"; empty for other lines.
std::string_view opcode_of(std::string_view line) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos || !starts_with(line.substr(start), "/*")) return {};
    const auto close = line.find("*/", start + 2);
    if (close == std::string_view::npos) return {};
    const std::string_view offset = line.substr(start + 2, close - start - 2);
    if (offset.empty() || offset.find_first_not_of("0123456789abcdef") != std::string_view::npos) return {};
    std::string_view rest = line.substr(close + 2);
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    if (starts_with(rest, "@")) {  // a predicate: @P0, @!UPT
        rest.remove_prefix(std::min(rest.size(), rest.find_first_of(" \t")));
        rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    }
    const auto end = rest.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    return rest.substr(0, end);
}

}  // namespace

void sass_reader::read_line(std::string_view line) {
    if (line.find("Function : ") != std::string_view::npos) {
        ++seen_.kernels;
        // The harness's own kernels (course_harness_*: the judge's check of a
        // replay counts with atomics) are the course's, not the code under
        // test: what they hold says nothing of where the student's may race.
        in_kernel_ = line.find("course_harness_") == std::string_view::npos;
        return;
    }
    if (!in_kernel_) return;
    const std::string_view op = opcode_of(line);
    if (op.empty()) return;
    seen_.shared_memory = seen_.shared_memory || may_touch_shared_memory(op);
    seen_.synchronization = seen_.synchronization || synchronizes(op);
}

kernel_instructions read_kernel_instructions(const std::string& sass) {
    sass_reader reader;
    std::istringstream lines(sass);
    for (std::string line; std::getline(lines, line);) reader.read_line(line);
    return reader.seen();
}

bool loads_kernels_at_run_time(const std::filesystem::path& library) {
    std::ifstream in(library, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    // The names an object file keeps for the functions it calls (or a
    // string it looks one up by).
    for (const char* name : {"nvrtcCompileProgram", "cuModuleLoad", "cuLibraryLoad", "cudaLibraryLoad",
                             "cuLinkAddData", "cuGetProcAddress", "cudaGetDriverEntryPoint", "dlopen"})
        if (bytes.find(name) != std::string::npos) return true;
    return false;
}

std::optional<kernel_instructions> kernel_instructions_of(const std::optional<std::filesystem::path>& cuobjdump,
                                                          const std::filesystem::path& program,
                                                          const std::filesystem::path& library,
                                                          const std::filesystem::path& scratch,
                                                          const std::atomic<bool>* give_up) {
    std::error_code ec;
    if (!cuobjdump || library.empty() || !std::filesystem::is_regular_file(library, ec)) return std::nullopt;
    if (loads_kernels_at_run_time(library)) return std::nullopt;
    std::filesystem::remove(scratch, ec);  // an earlier listing: the reader must see only this one
    sass_reader reader;
    std::optional<exit_status> ended;
    {
        child_process::options listing_to_scratch;
        listing_to_scratch.argv = {cuobjdump->string(), "-sass", program.string()};
        listing_to_scratch.output = scratch;
        child_process cuobjdump_run(listing_to_scratch);
        // Read as it is written, whole lines only.
        std::ifstream listing;
        std::string partial;
        auto read_more = [&] {
            if (!listing.is_open()) listing.open(scratch, std::ios::binary);
            if (!listing.is_open()) return;
            listing.clear();
            char buffer[1 << 16];
            while (listing.read(buffer, sizeof buffer), listing.gcount() > 0) {
                partial.append(buffer, static_cast<std::size_t>(listing.gcount()));
                if (!listing) break;
            }
            std::size_t start = 0;
            for (std::size_t end; (end = partial.find('\n', start)) != std::string::npos; start = end + 1)
                reader.read_line(std::string_view(partial).substr(start, end - start));
            partial.erase(0, start);
        };
        while (!(ended = cuobjdump_run.try_wait())) {
            read_more();
            if (reader.settled() || (give_up && *give_up)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (ended) {
            read_more();
            reader.read_line(partial);
        } else {
            cuobjdump_run.kill();
            cuobjdump_run.wait();
        }
    }
    std::filesystem::remove(scratch, ec);
    if (!reader.settled() && (!ended || ended->signaled || ended->code != 0)) return std::nullopt;  // given up, or failed
    if (reader.seen().kernels == 0) return std::nullopt;
    return reader.seen();
}

}  // namespace grader
