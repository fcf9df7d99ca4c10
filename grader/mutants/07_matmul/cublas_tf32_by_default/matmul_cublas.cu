// Known-wrong version (grader/mutants): TF32 is always on, even when the
// caller did not allow it.
#include "course/cublas_error.hpp"
#include "matmul.cuh"

lesson07::cublas_matmul::cublas_matmul(bool allow_tf32) {
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK(cublasCreate(&handle));
    handle_.reset(handle);  // owned from here on: destroyed even if the next call throws
    // CUBLAS_DEFAULT_MATH computes a float32 product in float32. With
    // CUBLAS_TF32_TENSOR_OP_MATH, cuBLAS may round A and B to TF32 (the
    // float32 exponent with a 10-bit mantissa) and multiply on the tensor
    // cores: much faster, but each product is only good to about 1e-3.
    // MISTAKE: TF32 regardless of allow_tf32.
    (void)allow_tf32;
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH));
}

void lesson07::cublas_matmul::operator()(const_matrix a, const_matrix b, matrix c,
                                         cudaStream_t stream) {
    check_shapes(a, b, c, "cublas_matmul");
    const int M = static_cast<int>(c.rows());
    const int N = static_cast<int>(c.cols());
    const int K = static_cast<int>(a.cols());
    // The handle queues its work on one stream at a time: ours.
    CUBLAS_CHECK(cublasSetStream(handle_.get(), stream));
    // cuBLAS reads matrices column-major. Our row-major M x N matrix C, read
    // column-major with leading dimension pitch, is C^T (N x M); likewise A
    // reads as A^T and B as B^T. Since C^T = B^T A^T, asking cuBLAS for the
    // column-major product "B times A" (no transposes, N x K times K x M)
    // writes exactly our row-major C = A B. The leading dimensions are the
    // pitches: the distance between rows in our row-major terms.
    const float alpha = 1.0f;  // C = alpha * A B + beta * C
    const float beta = 0.0f;   // beta 0: C's old contents are not read (they may be NaN)
    CUBLAS_CHECK(cublasSgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b.data(),
                             static_cast<int>(b.pitch()), a.data(), static_cast<int>(a.pitch()),
                             &beta, c.data(), static_cast<int>(c.pitch())));
}
