#pragma once
// Checking a matrix product against a float64 reference, with failure
// messages that name the pattern of the wrong elements and its usual cause.
#include <cstddef>
#include <functional>
#include <string>

#include "matmul.cuh"

namespace lesson07::testing {

// The four versions of the contract, and the file each one lives in.
enum class version { naive, tiled, register_blocked, cublas };
const char* name_of(version v);    // "matmul_tiled"
const char* source_of(version v);  // "matmul_tiled.cu"
bool hand_written(version v);

// Runs one version on `stream` (the cuBLAS one through a fresh cublas_matmul).
void run(version v, const_matrix a, const_matrix b, matrix c, cudaStream_t stream = nullptr);

// How far an element of C may be from the float64 reference:
//
//     |c(i, j) - ref(i, j)| <= (per_k * K + fixed) * sum over k of |a(i, k) * b(k, j)|
//
// Summing K products in float32, in any order, with or without fused
// multiply-adds, errs by at most about K * 2^-24 times the sum of the
// magnitudes (each addition rounds by half an ulp of a partial sum no larger
// than that sum). per_k = 2 * FLT_EPSILON = 4 * 2^-24 leaves a factor of 4 for
// the rounding of the products and for summation orders, and nothing more.
struct error_bound {
    double per_k;
    double fixed;
};
error_bound float32_bound();  // {2 * FLT_EPSILON, 0}
error_bound exact_bound();    // {0, 0}: for products that float32 computes exactly
// TF32 keeps 10 of float32's 23 mantissa bits: rounding (or truncating) A
// and B to it costs up to about 2^-9 of each product, on top of the float32
// sums; the bound allows 2^-8.
error_bound tf32_bound();

// The sizes of one product, and how far apart the rows of each matrix start
// (0: dense, pitch == cols).
struct product_shape {
    int m, n, k;
    std::size_t pitch_a = 0, pitch_b = 0, pitch_c = 0;
};

struct check_options {
    // Compare only this many rows of C with the reference (0: all of them),
    // always including the first and the last. Every element of C is still
    // checked for having been written.
    std::size_t sample_rows = 0;
    error_bound bound = float32_bound();
    // B is the identity (k == n), so C must equal A.
    bool identity_b = false;
};

using multiply_fn = std::function<void(const_matrix a, const_matrix b, matrix c)>;

// Draws A and B from this test's seed, poisons C (NaN, with guards around it
// and in the padding of its rows), calls `multiply`, and checks everything a
// right answer implies: each element of C within the bound, nothing written
// outside C, A and B unchanged. Failures are GoogleTest failures.
void check_product(const std::string& name, const multiply_fn& multiply, const product_shape& shape,
                   const check_options& options = {});

// check_product for one version of the contract. A hand-written version that
// calls a library GEMM fails here before it runs.
void check_version(version v, const product_shape& shape, const check_options& options = {});

}  // namespace lesson07::testing
