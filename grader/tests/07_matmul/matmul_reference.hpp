#pragma once
// The float64 reference of lesson07's product checks, summed on the GPU.
#include <vector>

namespace lesson07::testing {

// The float64 reference for some rows of C: the exact sum (float products
// are exact in double; the sum of at most a few thousand of them rounds far
// below float32's precision) and the sum of the products' magnitudes, which
// scales the allowed error.
struct reference_rows {
    std::vector<int> rows;
    std::vector<double> value;      // rows.size() x n
    std::vector<double> magnitude;  // rows.size() x n
};

// For each row i in `rows` and each column j of the product of A (row-major,
// `k_count` columns) and B (row-major, `n` columns): value = the sum over k,
// in ascending order, of a(i, k) b(k, j) in float64, and magnitude = the sum
// of those products' absolute values. A product of two floats is exact in
// float64, so the GPU's fused multiply-add rounds each step exactly as a
// multiply and an add on the CPU do: the sums are the same, bit for bit.
reference_rows reference_on_gpu(const std::vector<float>& a, int k_count, const std::vector<float>& b, int n,
                                const std::vector<int>& rows);

}  // namespace lesson07::testing
