#pragma once
// Reading what Nsight Compute and cuobjdump print: ncu's CSV reports (the
// explanations' profiles, profile_evidence.hpp and kernel_metrics.hpp) and
// the kernels compiled into the student's library and the test program.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// ncu, from $COURSE_NCU, the PATH or the CUDA toolkit's bin folder.
std::optional<std::filesystem::path> find_ncu();
// cuobjdump, which lists the kernels compiled into a library or program.
std::optional<std::filesystem::path> find_cuobjdump();

// ncu's --csv output, its "details" page: a row per kernel launch and
// metric, each as column name -> field ("Kernel Name", "Metric Name",
// "Metric Unit", "Metric Value", "ID", "Grid Size"...). Its own lines
// (==PROF==, ==WARNING==, ==ERROR==) are not rows.
using ncu_row = std::map<std::string, std::string>;
std::vector<ncu_row> ncu_csv_rows(const std::string& text);
// ncu's own error lines ("==ERROR== ..."), without that prefix, but not the
// one that only says the program ended with an error code: a failed test does
// that.
std::vector<std::string> ncu_errors(const std::string& text);
// A row's field; empty where the row has no such column.
const std::string& field_of(const ncu_row& row, const std::string& column);
// A field's number as ncu writes it ("1,073,775,360" -> 1073775360);
// nullopt for "n/a" and the like.
std::optional<double> ncu_number(const std::string& field);

// `cuobjdump -symbols` output: each kernel (STO_ENTRY) and the archive member
// it was compiled in, named as its source file ("matmul_tiled.cu").
std::map<std::string, std::string> parse_kernel_symbols(const std::string& text);
// Runs cuobjdump on `binary`; empty on failure (`log` keeps its output).
std::map<std::string, std::string> kernels_compiled_in(const std::filesystem::path& cuobjdump,
                                                       const std::filesystem::path& binary,
                                                       const std::filesystem::path& log);

// The kernels compiled into the student's library and into the test
// program (mangled name -> source file), each listed by cuobjdump into a file
// in `log_dir`; none where cuobjdump or the library is missing.
struct kernel_sources {
    std::map<std::string, std::string> own, test_program;
};
kernel_sources kernel_sources_of(const std::optional<std::filesystem::path>& cuobjdump,
                                 const std::filesystem::path& library, const std::filesystem::path& tests_program,
                                 const std::filesystem::path& log_dir);

}  // namespace grader
