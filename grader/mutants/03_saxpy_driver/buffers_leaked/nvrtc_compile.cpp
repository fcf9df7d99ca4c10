// Unchanged from the reference solution: this mutant's mistake is elsewhere.
#include "../../../../solutions/03_saxpy_driver/nvrtc_compile.cpp"
