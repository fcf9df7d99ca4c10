// Unchanged from the reference solution: this mutant's mistake is elsewhere.
#include "../../../../solutions/06_kernels/raw_kernel.cpp"
