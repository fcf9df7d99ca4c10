// Lesson 06, part 3: the seed's RawKernel example, my_add.
// Read lessons/06_kernels/README.md first. Grade your work with:
//     grader run lesson06
#include <stdexcept>

#include "course/launch.hpp"
#include "raw_kernel.hpp"

namespace lesson06 {

namespace {

// The kernel as the program ships it: text that NVRTC compiles at run time.
// A template, so one source serves every element type; the name expression
// "my_add<float>" picks the instance.
//
// TODO(lesson06): the seed launches exactly 25 threads for 25 elements; the
// test launches them as one block of 512. What do the other 487 do here?
constexpr const char* my_add_source = R"cuda(
template <typename T>
__global__ void my_add(const T* x1, const T* x2, T* y, unsigned long long n)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x1[i] + x2[i];
}
)cuda";

template <class T>
void my_add_impl(const char* name, course::device_span<const T> x1, course::device_span<const T> x2,
                 course::device_span<T> y, int threads, cudaStream_t stream) {
    // TODO(lesson06): 1. x1, x2 and y of different sizes: std::invalid_argument;
    //                 2. nothing to launch for an empty y;
    //                 3. const raw_kernel kernel(my_add_source, name);
    //                 4. kernel.launch(grid, block, 0, stream, ...) with one
    //                    thread per element and arguments of exactly the
    //                    kernel's parameter types (const T*, const T*, T*,
    //                    unsigned long long).
    // Then delete the line below.
    course::todo("lesson06::my_add in exercises/06_kernels/my_add.cpp");
}

}  // namespace

void my_add(course::device_span<const float> x1, course::device_span<const float> x2,
            course::device_span<float> y, int threads_per_block, cudaStream_t stream) {
    my_add_impl("my_add<float>", x1, x2, y, threads_per_block, stream);
}

void my_add(course::device_span<const double> x1, course::device_span<const double> x2,
            course::device_span<double> y, int threads_per_block, cudaStream_t stream) {
    my_add_impl("my_add<double>", x1, x2, y, threads_per_block, stream);
}

}  // namespace lesson06
