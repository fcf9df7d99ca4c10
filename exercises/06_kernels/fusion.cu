// Lesson 06, part 4: kernel fusion, through the elementwise launcher.
// Read lessons/06_kernels/README.md first. Grade your work with:
//     grader run lesson06
#include <stdexcept>

#include "elementwise.cuh"
#include "fusion.cuh"

namespace lesson06 {

namespace {

// TODO(lesson06): functors for the fused expression, exp(a * sin(x) + cos(y)),
// and for the three steps of the unfused version (a * sin(x); t + cos(y);
// exp(t)). In device code use the float functions sinf, cosf and expf.

}  // namespace

void fused_update(float a, course::device_span<const float> x, course::device_span<float> y,
                  cudaStream_t stream) {
    // TODO(lesson06): check the sizes, then ONE elementwise launch whose
    // output is y and whose inputs are x and y itself (as a span of const
    // float). Is it safe to read y and write y in the same kernel?
    // Then delete the line below.
    course::todo("lesson06::fused_update in exercises/06_kernels/fusion.cu");
}

void unfused_update(float a, course::device_span<const float> x, course::device_span<float> y,
                    course::device_span<float> scratch, cudaStream_t stream) {
    // TODO(lesson06): check the sizes, then three elementwise launches on
    // `stream`, through scratch:
    //     scratch = a * sin(x);  scratch = scratch + cos(y);  y = exp(scratch)
    // Then delete the line below.
    course::todo("lesson06::unfused_update in exercises/06_kernels/fusion.cu");
}

}  // namespace lesson06
