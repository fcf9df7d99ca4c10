// Lesson 07, part 4: the product through cuBLAS.
// Read "cuBLAS, row-major" in lessons/07_matmul/README.md first.
// Grade your work with:  grader run lesson07
#include "course/cublas_error.hpp"
#include "matmul.cuh"

lesson07::cublas_matmul::cublas_matmul(bool allow_tf32) {
    // TODO(lesson07): 1. create the handle with cublasCreate (through
    //                    CUBLAS_CHECK) and hand it to handle_ (reset);
    //                 2. set its math mode: CUBLAS_DEFAULT_MATH unless
    //                    allow_tf32, then CUBLAS_TF32_TENSOR_OP_MATH.
    // Then delete the line below.
    course::todo("lesson07::cublas_matmul::cublas_matmul in exercises/07_matmul/matmul_cublas.cu");
}

void lesson07::cublas_matmul::operator()(const_matrix a, const_matrix b, matrix c,
                                         cudaStream_t stream) {
    // TODO(lesson07): 1. check_shapes(a, b, c, "cublas_matmul");
    //                 2. cublasSetStream(handle_.get(), stream);
    //                 3. one cublasSgemm. cuBLAS is column-major: work out
    //                    which product of which matrices, with which sizes
    //                    and leading dimensions, leaves our row-major C = A B
    //                    in c.data(). Every cuBLAS call goes through CUBLAS_CHECK.
    // Then delete the line below.
    course::todo("lesson07::cublas_matmul::operator() in exercises/07_matmul/matmul_cublas.cu");
}
