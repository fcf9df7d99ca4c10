// Known-wrong version (grader/mutants): the "hand-written" register-blocked
// version hands the work to cuBLAS. Its results are right and fast; the rule
// of the lesson gives it zero.
#include "course/cublas_error.hpp"
#include "matmul.cuh"

void lesson07::matmul_register_blocked(const_matrix a, const_matrix b, matrix c,
                                       cudaStream_t stream) {
    check_shapes(a, b, c, "matmul_register_blocked");
    // MISTAKE: a library GEMM in a hand-written version.
    static const cublasHandle_t handle = [] {
        cublasHandle_t h = nullptr;
        CUBLAS_CHECK(cublasCreate(&h));
        return h;
    }();
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    const float alpha = 1.0f;
    const float beta = 0.0f;
    CUBLAS_CHECK(cublasSgemm(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(c.cols()), static_cast<int>(c.rows()),
        static_cast<int>(a.cols()), &alpha, b.data(), static_cast<int>(b.pitch()), a.data(),
        static_cast<int>(a.pitch()), &beta, c.data(), static_cast<int>(c.pitch())));
}
