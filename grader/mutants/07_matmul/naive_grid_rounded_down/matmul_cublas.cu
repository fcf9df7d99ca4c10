// Unchanged from the reference solution: this mutant's mistake is elsewhere.
#include "../../../../solutions/07_matmul/matmul_cublas.cu"
