#pragma once
// std::invalid_argument for the headers that students' .cu files include.
// <stdexcept> brings <string> with it, and nvcc runs every header of a .cu
// file through four tools: lesson07's matmul_tiled.cu compiled in 1.7 s with
// them and 0.65 s without (course/error.hpp says the same of CUDA_CHECK). So
// such a header formats its message as printf would and calls this, which is
// compiled once, in common/src/error.cpp.
namespace course {

// Throws std::invalid_argument with the message printf would print.
[[noreturn]] void throw_invalid_argument(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace course
