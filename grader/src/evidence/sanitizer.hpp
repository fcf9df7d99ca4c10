#pragma once
// compute-sanitizer, the CUDA toolkit's checker of kernels, run on one graded
// test and read: what a failure's explanation can rest on instead of a guess.
//   memcheck   out-of-bounds and misaligned accesses to global, shared and local memory
//   racecheck  shared-memory hazards: two threads of a block, one writing, no barrier between
//   synccheck  barriers not every thread of a block (or warp) reaches
//   initcheck  reads of global memory nothing ever wrote
// The grader reads the tool's own text report (--log-file): it is what the
// Compute Sanitizer guide documents, line by line. A finding is only ever
// what the tool printed, in plainer words.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

enum class sanitizer_tool { memcheck, racecheck, synccheck, initcheck };
const char* to_string(sanitizer_tool tool);

// The order the tools are tried in on a test until one finds something: each
// rerun costs a whole run of the test, slowed 10 to 100 times.
inline constexpr sanitizer_tool sanitizer_tools_in_order[] = {
    sanitizer_tool::memcheck, sanitizer_tool::racecheck, sanitizer_tool::synccheck, sanitizer_tool::initcheck};

// compute-sanitizer, from $COURSE_COMPUTE_SANITIZER, the PATH or the CUDA
// toolkit's bin folder.
std::optional<std::filesystem::path> find_compute_sanitizer();

// The arguments that put a program under `tool`, which writes its report to
// `report_file`. The program's own arguments follow them. `only_kernels`
// (mangled names): where given, the tool checks those kernels alone
// (--kernel-name), and every other kernel runs unchecked at full speed.
std::vector<std::string> sanitizer_command(const std::filesystem::path& compute_sanitizer, sanitizer_tool tool,
                                           const std::filesystem::path& report_file,
                                           const std::vector<std::string>& only_kernels = {});

// What compute-sanitizer exits with when it found an error (--error-exitcode):
// a test program never ends so on its own (it ends with 0 or 1).
inline constexpr int sanitizer_found_errors_exit_code = 86;
// Errors printed in full per run; the rest are only counted.
inline constexpr int sanitizer_print_limit = 5;

struct sanitizer_finding {
    sanitizer_tool tool = sanitizer_tool::memcheck;
    std::string kind;      // in plain words: "out-of-bounds write of 4 bytes to global memory"
    std::string kernel;    // as the report names it, without its parameters: "lesson01::vecadd_kernel"
    std::string location;  // file:line (the file's name only), empty without -lineinfo
    std::string thread;    // "(1,0,0)", where the report names one thread
    std::string block;     // "(8,0,0)"
    std::string address;   // what the report says of the address, in its words
    std::optional<std::uintptr_t> address_value;  // the address itself, where the report gives it
    std::string other_access;  // a race's second access: "read by thread (187,0,0) at tiled.cu:15"
};

struct sanitizer_report {
    std::vector<sanitizer_finding> findings;  // in the report's order
    // The number in "ERROR SUMMARY: N errors" (all, also those past the print limit).
    int error_count = 0;
    // Lines in which the tool says it could not do its work ("Error: Device not supported").
    std::vector<std::string> tool_errors;
    // Lines in which the tool says the program did not end normally under it
    // ("Error: process didn't terminate successfully": a crash, say): the
    // program's doing, not the tool's, and nothing about the GPU's work before.
    std::vector<std::string> program_ended;
    // Lines in which the tool says it failed in this run ("Internal Sanitizer
    // Error: The Sanitizer failed to handle a hardware exception."): counted
    // as an error, but none of the program's.
    std::vector<std::string> internal_errors;
};

// Reads a report written with --log-file. Lines it does not know are skipped.
sanitizer_report parse_sanitizer_report(sanitizer_tool tool, const std::string& text);

// "compute-sanitizer (memcheck): out-of-bounds write of 4 bytes to global
// memory in vecadd_kernel at vecadd.cu:18, thread (1,0,0) block (1,0,0)"
std::string describe(const sanitizer_finding& finding);

}  // namespace grader
