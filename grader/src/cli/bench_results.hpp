#pragma once
// What `grader bench` makes of Google Benchmark's output: a benchmark's name
// split into its family and parameters, the selection that --sizes and
// --block-sizes ask for, and one result per benchmark with the spread of its
// repetitions. Pure functions over JSON, so the host tests can check them.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkout/manifest.hpp"

namespace grader {

// "BM_vecadd/n:1048576/threads:256/manual_time" -> family "vecadd",
// params {n: 1048576, threads: 256}. "BM_matmul/cublas/n:4096/manual_time" ->
// family "matmul/cublas". Google Benchmark's own suffixes (manual_time,
// repeats:3, ...) are dropped.
struct benchmark_name {
    std::string family;
    std::map<std::string, double> params;
};
benchmark_name parse_benchmark_name(const std::string& name);

// "1e8", "100000000", "2^28", "64Ki", "1Mi", "1M" -> the number. Throws
// std::invalid_argument with the text when it is none of these.
double parse_size(const std::string& text);

// The problem size of a benchmark (its n, bytes or rows x cols) and its block
// size (threads, or bx x by), when it has them.
std::optional<double> size_of(const benchmark_name& b);
std::optional<double> block_size_of(const benchmark_name& b);

// Which of `names` to run: those whose size is in `sizes` and block size in
// `block_sizes` (an empty set selects everything; a benchmark without a size
// or block size is kept, it has nothing to sweep).
std::vector<std::string> select_benchmarks(const std::vector<std::string>& names, const std::set<double>& sizes,
                                           const std::set<double>& block_sizes);

// Is `name` one of the lesson's baselines (a name prefix such as "BM_copy" or
// "BM_matmul/cublas")?
bool is_baseline(const std::string& name, const std::vector<std::string>& baselines);

// Is `name` a row whose code the student edition leaves out (the lesson's
// WITHHELD prefixes: a going-further kernel that passes the lesson)?
bool is_withheld(const std::string& name, const lesson_info& lesson);

// Which build variant's benchmark program times `impl` (exercise, solution
// or baseline), or, in `refusal`, why none can (one line, with what to do
// instead). Every program registers every row; `impl` picks the rows.
// "exercise" runs in the exercise's program, "solution" in the solution's.
// "baseline" (a copy, cuBLAS, CUB: a reference, not the student's kernels)
// runs in the solution's where the build has one, else in the exercise's:
// the student edition has no solution, and a baseline does not need one.
// (A baseline reached through a lesson function, such as lesson07's cuBLAS
// rows through lesson07::cublas_matmul, then runs the student's version of
// that function.)
struct bench_program {
    std::string variant;  // "exercise" or "solution"; empty with a refusal
    std::string refusal;
};
bench_program bench_program_for(const lesson_info& lesson, const std::string& impl, bool student_edition);

// Google Benchmark's --benchmark_filter that runs exactly `names`.
std::string filter_for(const std::vector<std::string>& names);

// One result per benchmark of a Google Benchmark JSON file, its repetitions
// folded into time statistics (microseconds) and median counters:
//   {impl, name, family, params, repetitions, time_us: {median, mean, min, max, stddev, samples},
//    counters: {...}}
// Benchmarks that failed (SkipWithError) come back in `errors` as {impl, name, message}.
struct parsed_run {
    nlohmann::json results = nlohmann::json::array();
    nlohmann::json errors = nlohmann::json::array();
    nlohmann::json context = nlohmann::json::object();
};
parsed_run parse_google_benchmark(const nlohmann::json& output, const std::string& impl);

// Google Benchmark's JSON file as nlohmann::json. It writes a counter that is
// not a number as a bare NaN or inf (the coefficient of variation of a
// counter that is 0 in every repetition, say), which JSON does not allow:
// those values are read as null, which parse_google_benchmark skips.
nlohmann::json read_google_benchmark_json(const std::string& text);

// The document `grader bench` writes: schema, lesson, context (device and
// build metadata), results, errors, and lesson05's timeline when there is one.
inline constexpr const char* bench_schema = "course-bench/1";

}  // namespace grader
