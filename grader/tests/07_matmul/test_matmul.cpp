// Graded tests for lesson07 (matrix multiplication). Each GRADED_TEST carries
// its points and the title the report shows.
//
// Sizes are written M x N x K: A is M x K, B is K x N, C is M x N. None of the
// odd ones is a multiple of any tile size, so the edges of every tile get
// tested. Every result is compared with a float64 reference within a bound
// that grows with K (matmul_check.hpp explains it); C starts as NaN with
// guards around it, so an element never written or a store outside C shows.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "course/cublas_error.hpp"
#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/explained.hpp"
#include "course/testing/fresh_inputs.hpp"
#include "course/testing/graded.hpp"
#include "course/testing/performance.hpp"
#include "course/testing/timed_calls.hpp"
#include "library_symbols.hpp"
#include "matmul.cuh"
#include "matmul_check.hpp"
#include "textbook_kernels.hpp"

namespace {

using namespace lesson07::testing;

// The sizes, M x N x K. `padded` has rows padded to pitches that are multiples
// of 4, so 16-byte loads are possible inside the matrices but not at their
// edges.
constexpr product_shape tiny{1, 1, 1};
constexpr product_shape odd{17, 33, 9};
constexpr product_shape padded{70, 100, 45, 48, 104, 104};
constexpr product_shape medium{1000, 777, 513};
constexpr product_shape large{2048, 2048, 2048};
// 2048^3 is 17 billion floating-point operations: the float64 reference
// (matmul_reference.cu) sums 64 rows of C, the first, the last and 62 drawn
// from the seed.
constexpr std::size_t large_sample_rows = 64;

void check_large(version v) { check_version(v, large, {large_sample_rows}); }

}  // namespace

// ---------------------------------------------------------------------------
// Part 1: naive
GRADED_TEST(Naive, Tiny, 1, "naive: 1 x 1 x 1") { check_version(version::naive, tiny); }
GRADED_TEST(Naive, OddShape, 1, "naive: 17 x 33 x 9 (M x N x K)") {
    check_version(version::naive, odd);
}
GRADED_TEST(Naive, PaddedRows, 1, "naive: 70 x 100 x 45, rows padded") {
    check_version(version::naive, padded);
}
GRADED_TEST(Naive, Medium, 2, "naive: 1000 x 777 x 513") { check_version(version::naive, medium); }
GRADED_TEST(Naive, Large, 2, "naive: 2048 x 2048 x 2048") { check_large(version::naive); }

// ---------------------------------------------------------------------------
// Part 2: shared-memory tiles
GRADED_TEST(Tiled, Tiny, 1, "tiled: 1 x 1 x 1") { check_version(version::tiled, tiny); }
GRADED_TEST(Tiled, OddShape, 1, "tiled: 17 x 33 x 9 (M x N x K)") {
    check_version(version::tiled, odd);
}
GRADED_TEST(Tiled, PaddedRows, 1, "tiled: 70 x 100 x 45, rows padded") {
    check_version(version::tiled, padded);
}
GRADED_TEST(Tiled, Medium, 2, "tiled: 1000 x 777 x 513") { check_version(version::tiled, medium); }
GRADED_TEST(Tiled, Large, 2, "tiled: 2048 x 2048 x 2048") { check_large(version::tiled); }

// ---------------------------------------------------------------------------
// Part 3: register blocking
GRADED_TEST(RegisterBlocked, Tiny, 1, "register-blocked: 1 x 1 x 1") {
    check_version(version::register_blocked, tiny);
}
GRADED_TEST(RegisterBlocked, OddShape, 1, "register-blocked: 17 x 33 x 9 (M x N x K)") {
    check_version(version::register_blocked, odd);
}
GRADED_TEST(RegisterBlocked, PaddedRows, 1, "register-blocked: 70 x 100 x 45, rows padded") {
    check_version(version::register_blocked, padded);
}
GRADED_TEST(RegisterBlocked, Medium, 2, "register-blocked: 1000 x 777 x 513") {
    check_version(version::register_blocked, medium);
}
GRADED_TEST(RegisterBlocked, Large, 2, "register-blocked: 2048 x 2048 x 2048") {
    check_large(version::register_blocked);
}

// ---------------------------------------------------------------------------
// Part 4: cuBLAS
GRADED_TEST(Cublas, Tiny, 1, "cuBLAS: 1 x 1 x 1") { check_version(version::cublas, tiny); }
GRADED_TEST(Cublas, OddShape, 1, "cuBLAS: 17 x 33 x 9 (M x N x K)") {
    check_version(version::cublas, odd);
}
GRADED_TEST(Cublas, PaddedRows, 1, "cuBLAS: 70 x 100 x 45, rows padded") {
    check_version(version::cublas, padded);
}
GRADED_TEST(Cublas, Medium, 2, "cuBLAS: 1000 x 777 x 513") {
    check_version(version::cublas, medium);
}
GRADED_TEST(Cublas, Large, 2, "cuBLAS: 2048 x 2048 x 2048") { check_large(version::cublas); }

GRADED_TEST(Cublas, Tf32OffByDefault, 2,
            "cuBLAS: TF32 off by default (A x I == A exactly, 1024^3)") {
    // Multiplying by the identity is exact in float32: every sum is one
    // product a(i, j) * 1 plus zeros. Inputs rounded to TF32 lose their low 13
    // mantissa bits, so C == A exactly only if TF32 stayed off.
    check_product("cublas_matmul()",
                  [](lesson07::const_matrix a, lesson07::const_matrix b, lesson07::matrix c) {
                      lesson07::cublas_matmul multiply;  // the default: allow_tf32 = false
                      multiply(a, b, c);
                  },
                  {1024, 1024, 1024}, {.bound = exact_bound(), .identity_b = true});
}

GRADED_TEST(Cublas, Tf32Allowed, 1,
            "cuBLAS with TF32 allowed: within TF32's error (300 x 500 x 700)") {
    check_product("cublas_matmul(/*allow_tf32=*/true)",
                  [](lesson07::const_matrix a, lesson07::const_matrix b, lesson07::matrix c) {
                      lesson07::cublas_matmul multiply(true);
                      multiply(a, b, c);
                  },
                  {300, 500, 700}, {.bound = tf32_bound()});
}

// ---------------------------------------------------------------------------
GRADED_TEST(Shapes, Rejected, 1, "every version rejects shapes that do not fit") {
    course::device_array<float> memory(64);
    auto view = [&](int rows, int cols) { return lesson07::matrix(memory.data(), rows, cols); };
    struct mismatch {
        const char* what;
        int a_rows, a_cols, b_rows, b_cols, c_rows, c_cols;
    };
    const mismatch cases[] = {{"A is 4 x 5 but B is 6 x 7", 4, 5, 6, 7, 4, 7},
                              {"A x B is 4 x 7 but C is 5 x 7", 4, 5, 5, 7, 5, 7}};
    // How each call ended is the evidence: the judge decides from it.
    enum class ended { normally, invalid_argument, unfinished, other };
    for (version v : {version::naive, version::tiled, version::register_blocked, version::cublas}) {
        for (const mismatch& m : cases) {
            ended how = ended::normally;
            std::string what;
            try {
                run(v, view(m.a_rows, m.a_cols), view(m.b_rows, m.b_cols),
                    view(m.c_rows, m.c_cols));
                CUDA_CHECK(cudaDeviceSynchronize());
            } catch (const std::invalid_argument&) {
                how = ended::invalid_argument;
            } catch (const course::not_implemented& e) {
                how = ended::unfinished;
                what = e.what();
            } catch (const std::exception& e) {
                how = ended::other;
                what = e.what();
            }
            how = course::testing::observe("how it ended", how);
            what = course::testing::observe("what it threw", what);
            if (how == ended::normally)
                ADD_FAILURE() << fmt::format(
                    "{} accepted matrices that do not fit ({}) and returned normally; it should "
                    "throw std::invalid_argument: call lesson07::check_shapes first.",
                    name_of(v), m.what);
            else if (how == ended::unfinished)
                ADD_FAILURE() << what;
            else if (how == ended::other)
                ADD_FAILURE() << fmt::format(
                    "{} with matrices that do not fit ({}) threw \"{}\" instead of "
                    "std::invalid_argument: call lesson07::check_shapes first.",
                    name_of(v), m.what, what);
        }
    }
}

// ---------------------------------------------------------------------------
// Performance, against this GPU: each hand-written version against its
// textbook form, the register-blocked one against cuBLAS, at 2048^3. The
// student's figure is the judge's: it launches the kernels the student's
// call launched again, in its own process, from the student's compiled
// device code, on new inputs, checks every element, and times that
// (course/testing/timed_calls.hpp, TRUST.md item 9). The yardsticks are timed
// by the judge the same way (time_yardstick), on the same GPU in the same run.
namespace {

// Square n x n matrices on the GPU.
struct square_problem {
    std::size_t n;
    course::device_array<float> a, b, c;

    explicit square_problem(std::size_t size) : n(size), a(size * size), b(size * size), c(size * size) {}
    lesson07::const_matrix a_view() const { return {a.data(), n, n}; }
    lesson07::const_matrix b_view() const { return {b.data(), n, n}; }
    lesson07::matrix c_view() { return {c.data(), n, n}; }
    double flops() const { return 2.0 * n * n * n; }
    double gigaflops(double ms) const { return flops() / (ms * 1e6); }
};

// Ten timed calls: a 2048^3 product takes milliseconds, and each is made by
// the student's program, again by the judge's reference, replayed, checked
// and timed beside its yardstick; the median of ten is steady to a few percent.
constexpr int timed_repetitions = 10;

// C = A x B on `p` by `call`, as a timed test's calls: new inputs before each,
// of mixed signs and full 24-bit mantissas (fresh_inputs.hpp), each element
// held to the reference's within matmul_tolerance of its sum of |a||b|.
course::testing::timed_calls product_calls(std::string name, square_problem& p,
                                           std::function<void(cudaStream_t)> call) {
    course::testing::timed_calls work;
    work.name = std::move(name);
    work.repetitions = timed_repetitions;
    work.fresh_inputs = [&p](std::uint64_t seed, cudaStream_t s) {
        course::testing::fill_fresh(p.a.view(), seed, s);
        course::testing::fill_fresh(p.b.view(), seed + 101, s);
    };
    work.call = std::move(call);
    work.output = p.c.view();
    // Float32 along K (result_check.hpp): a product on TF32 or FP16 inputs errs by more.
    work.tolerance = course::testing::matmul_tolerance;
    work.arrays = {p.a.view(), p.b.view(), p.c.view()};
    return work;
}

// The GFLOP/s of the student's version `v`, from the judge's replays;
// nullopt in the student's program, and in the judge after the test failed
// (a figure above this GPU's peak float32 rate fails: the work was not all
// done on the CUDA cores in the time).
std::optional<double> student_gigaflops(version v, square_problem& p) {
    const auto ms = course::testing::time_calls(product_calls(
        name_of(v), p, [&, v](cudaStream_t s) { run(v, p.a_view(), p.b_view(), p.c_view(), s); }));
    if (course::testing::verdict_left_to_judge() || !ms) return std::nullopt;
    const double gflops = p.gigaflops(*ms);
    const double peak = course::testing::peak_float32_gflops();
    if (const std::string impossible = course::testing::beyond_ceiling(
            gflops, peak, fmt::format("{}: {:.0f} GFLOP/s", name_of(v), gflops),
            fmt::format("its CUDA cores' peak float32 rate is {:.0f} GFLOP/s (one multiply-add a lane a clock)", peak));
        !impossible.empty()) {
        ADD_FAILURE() << impossible;
        return std::nullopt;
    }
    return gflops;
}

// The GFLOP/s of a yardstick, timed by the judge as the replays are.
double yardstick_gigaflops(std::string name, square_problem& p, std::function<void(cudaStream_t)> call) {
    return p.gigaflops(course::testing::time_yardstick(product_calls(std::move(name), p, std::move(call))));
}

// The yardstick of part 3: cuBLAS's float32 GEMM of the same size, through a
// handle of the test's own (the student's cublas_matmul is graded, not trusted).
class cublas_reference {
public:
    cublas_reference() {
        cublasHandle_t handle{};
        CUBLAS_CHECK(cublasCreate(std::addressof(handle)));
        handle_.reset(handle);
        CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // float32, no TF32
    }
    // An n x n x n product: the same work as C = A x B (for timing, which
    // operand comes first does not matter).
    void multiply(square_problem& p, cudaStream_t stream) {
        const float one = 1.0f, zero = 0.0f;
        cublasHandle_t handle = handle_.get();
        CUBLAS_CHECK(cublasSetStream(handle, stream));
        const int n = static_cast<int>(p.n);
        CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, p.a.data(), n, p.b.data(), n,
                                 &zero, p.c.data(), n));
    }

private:
    struct destroy {
        void operator()(cublasHandle_t h) const noexcept { cublasDestroy(h); }
    };
    std::unique_ptr<cublasContext, destroy> handle_;
};

// A hand-written version that links a library GEMM earns no speed points
// either. (The replay refuses a library's kernel however it is reached; this
// check reads what was linked, and says so before anything runs.)
bool computes_itself(version v) {
    const std::string use = library_gemm_use(source_of(v));
    if (use.empty()) return true;
    course::testing::next_failure_explained_beyond_the_tools();  // a profile would show the library's kernel
    ADD_FAILURE() << use;
    return false;
}

// Each hand-written kernel is timed against its textbook form on the same
// GPU (textbook_kernels.hpp). This share of its speed is needed: far from
// the plain technique (which measures 1.0 give or take a few percent) and far
// above what a kernel without the technique reaches.
constexpr double share_of_textbook_needed = 0.8;

// A lesson function's shape: C = A x B on a stream.
using matmul_function = void (*)(lesson07::const_matrix, lesson07::const_matrix, lesson07::matrix, cudaStream_t);

// Times the student's version `v` of part `what` ("naive") at 2048^3 and,
// in the judge, `textbook` beside it; says the figure, and fails below the
// share needed with what the textbook kernel has.
void expect_near_textbook(version v, const char* what, matmul_function textbook, const char* textbook_name,
                          const std::string& what_it_has) {
    if (!computes_itself(v)) return;
    square_problem p(2048);
    const auto student_or_none = student_gigaflops(v, p);
    if (!student_or_none) return;
    const double student = *student_or_none;
    ::testing::Test::RecordProperty(fmt::format("{}_gflops", what), std::to_string(student));
    const double yardstick = yardstick_gigaflops(fmt::format("textbook {}", what), p, [&](cudaStream_t s) {
        textbook(p.a_view(), p.b_view(), p.c_view(), s);
    });
    const double share = student / yardstick;
    course::testing::report_figure(fmt::format("{:.0f} GFLOP/s, {:.2f}x the textbook kernel's {:.0f} GFLOP/s on this GPU; {:.2f}x is needed",
                                               student, share, yardstick, share_of_textbook_needed));
    EXPECT_GE(share, share_of_textbook_needed) << fmt::format(
        "{}: {:.0f} GFLOP/s (the median of {} replays of your calls by the judge), {:.2f}x the speed of {}, which "
        "ran at {:.0f} GFLOP/s on this GPU in the same run; {:.2f}x is needed.\nWhat that kernel has: {}",
        what, student, timed_repetitions, share, textbook_name, yardstick, share_of_textbook_needed, what_it_has);
}

}  // namespace

GRADED_PERF_TEST(MatmulPerf, NaiveVsTextbook, 1, "naive at least 80% of the textbook naive kernel's speed at 2048^3") {
    expect_near_textbook(
        version::naive, "naive", textbook_naive_matmul, textbook_naive_name,
        "threadIdx.x picks the column of C, so the threads of a warp read neighbouring elements of a row of B "
        "(one coalesced access) and the same element of A (a broadcast). A kernel whose threadIdx.x picks the "
        "row reads one element from each of 32 rows of A at once: 32 separate accesses where one would do.");
}

// The tiled test asks for the technique of part 2 done as well as its plain,
// textbook form does on this GPU: tiles in shared memory that every thread
// of the block reuses, loaded with coalesced accesses. It asks for no more
// (several elements of C per thread is part 3's lesson), and a tiling that
// does not reuse its tiles, or loads them uncoalesced, still falls short.
GRADED_PERF_TEST(MatmulPerf, TiledVsTextbook, 2, "tiled at least 80% of the textbook tiled kernel's speed at 2048^3") {
    expect_near_textbook(
        version::tiled, "tiled", textbook_tiled_matmul, textbook_tiled_name,
        "each element of A and B it loads from global memory is used 16 times from shared memory (a tile is "
        "loaded once per step of K, by the whole block, and every thread reads a row of one tile and a column of "
        "the other); the 16 threads along a row of the block load 16 neighbouring floats (coalesced); and in "
        "shared memory a warp reads one address of the A tile (a broadcast) and neighbouring floats of the B "
        "tile (no bank conflicts). A kernel that reads A or B from global memory inside its k loop, lets "
        "threadIdx.x pick the row, or reads a tile along a column, loses that.");
}

GRADED_PERF_TEST(MatmulPerf, RegisterBlockedVsCublas, 3, "register-blocked at least 25% of cuBLAS at 2048^3") {
    if (!computes_itself(version::register_blocked)) return;
    square_problem p(2048);
    const auto blocked_or_none = student_gigaflops(version::register_blocked, p);
    if (!blocked_or_none) return;
    const double blocked = *blocked_or_none;
    RecordProperty("register_blocked_gflops", std::to_string(blocked));
    cublas_reference reference;
    const double cublas =
        yardstick_gigaflops("cuBLAS sgemm", p, [&](cudaStream_t s) { reference.multiply(p, s); });
    const double share = blocked / cublas;
    RecordProperty("cublas_gflops", std::to_string(cublas));
    course::testing::report_figure(fmt::format("{:.0f} GFLOP/s, {:.0f}% of cuBLAS ({:.0f} GFLOP/s on this GPU); 25% is needed",
                                               blocked, 100 * share, cublas));
    EXPECT_GE(share, 0.25) << fmt::format(
        "register-blocked: {:.0f} GFLOP/s (the median of {} replays of your calls by the judge) = {:.0f}% of cuBLAS "
        "({:.0f} GFLOP/s on this GPU); 25% is needed.\n"
        "The usual causes: a thread tile too small to reuse what it reads (8 x 8 per thread is the "
        "classic size); the 64 accumulators spilled to local memory (compile with -Xptxas -v and "
        "look for spill stores); global loads that are not coalesced; or a transposed store into "
        "shared memory that conflicts on every bank (pad the rows).",
        blocked, timed_repetitions, 100 * share, cublas);
}
