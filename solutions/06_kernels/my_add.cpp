// Lesson 06, part 3: the seed's RawKernel example, my_add, reference solution.
#include <stdexcept>

#include "course/launch.hpp"
#include "raw_kernel.hpp"

namespace lesson06 {

namespace {

// The kernel as the program ships it: text that NVRTC compiles at run time.
// A template, so one source serves every element type; the name expression
// "my_add<float>" picks the instance. NVRTC needs no headers for it.
//
// The seed launches exactly 25 threads for 25 elements; the test launches
// them as one block of 512. 487 threads then have no element, and the bounds
// check keeps them from reading and writing past the end of the arrays.
constexpr const char* my_add_source = R"cuda(
template <typename T>
__global__ void my_add(const T* x1, const T* x2, T* y, unsigned long long n)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x1[i] + x2[i];
    }
}
)cuda";

template <class T>
void my_add_impl(const char* name, course::device_span<const T> x1, course::device_span<const T> x2,
                 course::device_span<T> y, int threads, cudaStream_t stream) {
    if (x1.size() != y.size() || x2.size() != y.size())
        throw std::invalid_argument("my_add: x1, x2 and y must have the same size");
    if (y.empty()) return;
    // Compiled by the first call only; the cache hands the same kernel to
    // every later raw_kernel made from this source and name.
    const raw_kernel kernel(my_add_source, name);
    const auto block = static_cast<unsigned>(threads);
    // The kernel's parameters are (const T*, const T*, T*, unsigned long long):
    // the arguments must have exactly those types.
    const T* a = x1.data();
    const T* b = x2.data();
    T* out = y.data();
    const auto n = static_cast<unsigned long long>(y.size());
    kernel.launch(dim3(course::blocks_for(y.size(), block)), dim3(block), 0, stream, a, b, out, n);
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
