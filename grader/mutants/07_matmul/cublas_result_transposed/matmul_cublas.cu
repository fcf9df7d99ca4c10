// Known-wrong version (grader/mutants): A and B are passed transposed, which
// reads them right, but C comes out column-major: the transpose of the
// row-major C the contract asks for.
#include "course/cublas_error.hpp"
#include "matmul.cuh"

lesson07::cublas_matmul::cublas_matmul(bool allow_tf32) {
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK(cublasCreate(&handle));
    handle_.reset(handle);
    CUBLAS_CHECK(
        cublasSetMathMode(handle, allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
}

void lesson07::cublas_matmul::operator()(const_matrix a, const_matrix b, matrix c,
                                         cudaStream_t stream) {
    check_shapes(a, b, c, "cublas_matmul");
    const int M = static_cast<int>(c.rows());
    const int N = static_cast<int>(c.cols());
    const int K = static_cast<int>(a.cols());
    CUBLAS_CHECK(cublasSetStream(handle_.get(), stream));
    const float alpha = 1.0f;
    const float beta = 0.0f;
    // MISTAKE: op(A) = A and op(B) = B are right, but cuBLAS writes C
    // column-major (leading dimension M): element (i, j) lands at j * M + i.
    CUBLAS_CHECK(cublasSgemm(handle_.get(), CUBLAS_OP_T, CUBLAS_OP_T, M, N, K, &alpha, a.data(),
                             static_cast<int>(a.pitch()), b.data(), static_cast<int>(b.pitch()),
                             &beta, c.data(), M));
}
