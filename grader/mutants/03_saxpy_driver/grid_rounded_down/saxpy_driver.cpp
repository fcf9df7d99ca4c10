// Lesson 03: SAXPY through the driver API, reference solution.
#include "saxpy_driver.hpp"

#include <stdexcept>
#include <string>

#include "course/driver_error.hpp"
#include "course/launch.hpp"
#include "driver_api.hpp"

namespace lesson03 {

// --- Step 2: handles ---------------------------------------------------------

primary_context::primary_context(int ordinal) {
    const driver_api& cu = driver();  // throws, saying so, where there is no NVIDIA driver
    CU_CHECK(cu.cuInit(0));           // the first call starts the driver; later calls are cheap
    CUdevice device = 0;
    CU_CHECK(cu.cuDeviceGet(&device, ordinal));
    // Asked at run time: the kernel is compiled for the GPU that is really here.
    CU_CHECK(cu.cuDeviceGetAttribute(&major_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CU_CHECK(cu.cuDeviceGetAttribute(&minor_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));

    CUcontext context = nullptr;
    CU_CHECK(cu.cuDevicePrimaryCtxRetain(&context, device));
    retained_ = std::unique_ptr<CUctx_st, release>(context, release{device});
    // Owned from here on: if the push throws, retained_ still releases.
    CU_CHECK(cu.cuCtxPushCurrent(context));
    current_.reset(context);
}

void primary_context::pop::operator()(CUcontext) const noexcept {
    CUcontext popped = nullptr;
    driver().cuCtxPopCurrent(&popped);  // a destructor never throws: the status is dropped
}

void primary_context::release::operator()(CUcontext) const noexcept {
    driver().cuDevicePrimaryCtxRelease(device);
}

loaded_module::loaded_module(const std::string& image) {
    CUmodule module = nullptr;
    // PTX must end in a NUL, which c_str() guarantees; a CUBIN's ELF header
    // carries its own length. For PTX the driver compiles it for this GPU now.
    CU_CHECK(driver().cuModuleLoadData(&module, image.c_str()));
    module_.reset(module);
}

void loaded_module::unload::operator()(CUmodule module) const noexcept {
    driver().cuModuleUnload(module);
}

kernel_function loaded_module::function(const std::string& name) const {
    CUfunction function = nullptr;
    const CUresult status = driver().cuModuleGetFunction(&function, get(), name.c_str());
    if (status == CUDA_ERROR_NOT_FOUND) {
        // CU_CHECK would say "named symbol not found" without saying which.
        throw course::cuda_error(
            "driver", status, "CUDA_ERROR_NOT_FOUND",
            "the module has no kernel named \"" + name +
                "\" (a kernel keeps its plain name only when declared extern \"C\")",
            "cuModuleGetFunction(\"" + name + "\")", course::detail::file_name(__FILE__), __LINE__);
    }
    CU_CHECK(status);
    return kernel_function(function);
}

device_buffer::device_buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;  // cuMemAlloc refuses 0 bytes
    CUdeviceptr address = 0;
    CU_CHECK(driver().cuMemAlloc(&address, bytes));
    memory_.reset(reinterpret_cast<void*>(address));
}

void device_buffer::free_memory::operator()(void* address) const noexcept {
    driver().cuMemFree(reinterpret_cast<CUdeviceptr>(address));
}

driver_stream::driver_stream() {
    CUstream stream = nullptr;
    // Non-blocking: no implicit synchronisation with the legacy default stream.
    CU_CHECK(driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    stream_.reset(stream);
}

void driver_stream::destroy::operator()(CUstream stream) const noexcept {
    driver().cuStreamDestroy(stream);
}

void driver_stream::synchronize() const { CU_CHECK(driver().cuStreamSynchronize(get())); }

// --- Step 3: launch ------------------------------------------------------------

void launch_saxpy(const kernel_function& saxpy, float a, CUdeviceptr x, CUdeviceptr y,
                  CUdeviceptr out, std::size_t n, unsigned threads_per_block, CUstream stream) {
    if (n == 0) return;  // a grid of 0 blocks is an invalid launch, not a no-op
    // MUTANT: rounded down; the last, partial block never runs (and n below
    // one block gives a grid of 0 blocks). The seed's size, a multiple of 512,
    // hides it.
    const unsigned blocks = static_cast<unsigned>(n / threads_per_block);
    // One pointer per kernel parameter, in order, each to a value of exactly
    // the parameter's type: the driver copies sizeof(parameter) bytes from
    // each address. (An int for the size_t n would hand the kernel 4 bytes of
    // whatever lies next to it.) CUdeviceptr is 64 bits, like a pointer.
    void* args[] = {&a, &x, &y, &out, &n};
    CU_CHECK(driver().cuLaunchKernel(saxpy.get(), blocks, 1, 1,  // grid
                                     threads_per_block, 1, 1,    // block
                                     0, stream,                  // shared memory bytes, stream
                                     args, nullptr));            // arguments, "extra" (unused)
}

// --- Step 4: the whole program -------------------------------------------------

namespace {

// The compiled kernel for this context's GPU. Without a cache: PTX from
// NVRTC on every call, as the seed does, which the driver then compiles to
// machine code when the module loads. With a cache: a CUBIN, compiled once
// for this exact GPU and read from disk afterwards.
std::string saxpy_image(const primary_context& context, const std::filesystem::path& cache_dir) {
    // --fmad=false (as in the seed): a*x and +y are rounded separately, as on
    // the CPU, instead of being fused into one multiply-add.
    const std::vector<std::string> options = {"--fmad=false"};
    if (cache_dir.empty()) {
        std::vector<std::string> ptx_options = options;
        ptx_options.push_back("--gpu-architecture=" + context.virtual_arch());
        return compile_to_ptx(saxpy_source, saxpy_program_name, ptx_options);
    }
    return kernel_cache(cache_dir).cubin(saxpy_source, saxpy_program_name, options, context.arch()).cubin;
}

}  // namespace

std::vector<float> saxpy_driver(float a, const std::vector<float>& x, const std::vector<float>& y,
                                const saxpy_options& options) {
    if (x.size() != y.size())
        throw std::invalid_argument("saxpy_driver: x has " + std::to_string(x.size()) +
                                    " elements but y has " + std::to_string(y.size()));
    const std::size_t n = x.size();
    if (n == 0) return {};
    const std::size_t bytes = n * sizeof(float);
    const driver_api& cu = driver();

    // Declared first, so destroyed last: everything below lives in it.
    const primary_context context(options.device);
    const loaded_module module(saxpy_image(context, options.cache_dir));
    const kernel_function saxpy = module.function(saxpy_kernel_name);
    const driver_stream stream;
    const device_buffer x_device(bytes), y_device(bytes), out_device(bytes);

    // Copies, launch and copy back are queued on one stream, so they run in
    // that order; the host waits only once, at the end.
    CU_CHECK(cu.cuMemcpyHtoDAsync(x_device.get(), x.data(), bytes, stream.get()));
    CU_CHECK(cu.cuMemcpyHtoDAsync(y_device.get(), y.data(), bytes, stream.get()));
    launch_saxpy(saxpy, a, x_device.get(), y_device.get(), out_device.get(), n,
                 options.threads_per_block, stream.get());
    std::vector<float> out(n);
    CU_CHECK(cu.cuMemcpyDtoHAsync(out.data(), out_device.get(), bytes, stream.get()));
    stream.synchronize();  // `out` holds the result only once the stream has caught up
    return out;
    // Leaving: buffers freed, stream destroyed, module unloaded, context popped
    // and released, in that order (reverse declaration order).
}

}  // namespace lesson03
