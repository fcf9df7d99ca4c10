#pragma once
// Marks functions that run on both the host and the device. Plain C++
// compilers (g++ building the grader or a host test) see nothing.
#if defined(__CUDACC__)
#define COURSE_HD __host__ __device__
#else
#define COURSE_HD
#endif
