// Lesson 03, part 2: SAXPY through the driver API.
// Read lessons/03_saxpy_driver/README.md first; the contract is in
// lessons/03_saxpy_driver/saxpy_driver.hpp.
// Grade your work with:  grader run lesson03
//
// Reach the driver through the table:  const driver_api& cu = driver();
// and check every call:                CU_CHECK(cu.cuInit(0));
#include "saxpy_driver.hpp"

#include <stdexcept>
#include <string>

#include "course/driver_error.hpp"
#include "course/launch.hpp"
#include "driver_api.hpp"

namespace lesson03 {

// --- Step 2: handles ---------------------------------------------------------

primary_context::primary_context(int ordinal) {
    // TODO(lesson03): cuInit(0); cuDeviceGet(&device, ordinal); the compute capability
    // into major_ and minor_ (cuDeviceGetAttribute with
    // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR);
    // cuDevicePrimaryCtxRetain(&context, device), owned at once by retained_ (with
    // release{device}); then cuCtxPushCurrent(context), owned by current_.
    course::todo("lesson03::primary_context::primary_context in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

// The deleters below run in destructors: they must not throw, so they call
// the driver without CU_CHECK and ignore the status.

void primary_context::pop::operator()(CUcontext) const noexcept {
    // TODO(lesson03): cuCtxPopCurrent (it wants somewhere to put the popped context).
}

void primary_context::release::operator()(CUcontext) const noexcept {
    // TODO(lesson03): cuDevicePrimaryCtxRelease(device).
}

loaded_module::loaded_module(const std::string& image) {
    // TODO(lesson03): cuModuleLoadData(&module, image.c_str()), then own it in module_.
    course::todo("lesson03::loaded_module::loaded_module in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

void loaded_module::unload::operator()(CUmodule) const noexcept {
    // TODO(lesson03): cuModuleUnload.
}

kernel_function loaded_module::function(const std::string& name) const {
    // TODO(lesson03): cuModuleGetFunction(&function, get(), name.c_str()). When it
    // returns CUDA_ERROR_NOT_FOUND, throw a course::cuda_error whose message names the
    // kernel; any other failure goes through CU_CHECK.
    course::todo("lesson03::loaded_module::function in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

device_buffer::device_buffer(std::size_t bytes) : bytes_(bytes) {
    // TODO(lesson03): nothing for 0 bytes; otherwise cuMemAlloc(&address, bytes) and
    // own the address in memory_ (as a void*).
    course::todo("lesson03::device_buffer::device_buffer in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

void device_buffer::free_memory::operator()(void*) const noexcept {
    // TODO(lesson03): cuMemFree (the address back as a CUdeviceptr).
}

driver_stream::driver_stream() {
    // TODO(lesson03): cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), owned by stream_.
    course::todo("lesson03::driver_stream::driver_stream in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

void driver_stream::destroy::operator()(CUstream) const noexcept {
    // TODO(lesson03): cuStreamDestroy.
}

void driver_stream::synchronize() const {
    // TODO(lesson03): cuStreamSynchronize(get()).
    course::todo("lesson03::driver_stream::synchronize in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

// --- Step 3: launch ------------------------------------------------------------

void launch_saxpy(const kernel_function& saxpy, float a, CUdeviceptr x, CUdeviceptr y,
                  CUdeviceptr out, std::size_t n, unsigned threads_per_block, CUstream stream) {
    // TODO(lesson03): 1. return when n is 0;
    //                 2. blocks to cover n (course::blocks_for rounds up);
    //                 3. an array with the ADDRESS of each kernel argument, in the
    //                    kernel's parameter order: void* args[] = {&a, ...};
    //                 4. cuLaunchKernel(function, blocks,1,1, threads,1,1, 0, stream, args, nullptr).
    course::todo("lesson03::launch_saxpy in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

// --- Step 4: the whole program -------------------------------------------------

std::vector<float> saxpy_driver(float a, const std::vector<float>& x, const std::vector<float>& y,
                                const saxpy_options& options) {
    // TODO(lesson03): 1. check the arguments first (sizes differ: std::invalid_argument;
    //                    empty: return {});
    //                 2. primary_context (declared first: it must outlive the rest);
    //                 3. the kernel image: with options.cache_dir empty, compile_to_ptx with
    //                    "--gpu-architecture=" + context.virtual_arch(); otherwise
    //                    kernel_cache(options.cache_dir).cubin(..., context.arch()).
    //                    Pass "--fmad=false" as the seed does;
    //                 4. loaded_module, its "saxpy" function, a driver_stream, three
    //                    device_buffers;
    //                 5. cuMemcpyHtoDAsync x and y, launch_saxpy, cuMemcpyDtoHAsync into
    //                    the result, synchronise the stream, return the result.
    course::todo("lesson03::saxpy_driver in exercises/03_saxpy_driver/saxpy_driver.cpp");
}

}  // namespace lesson03
