// Lesson 06, part 3: raw kernels compiled at run time, reference solution.
//
// NVRTC compiles the source to a CUBIN for this GPU; the runtime's library
// API loads it (cudaLibraryLoadData), finds the kernel (cudaLibraryGetKernel)
// and launches it (cudaLaunchKernel accepts a cudaKernel_t where it takes a
// function's address). No driver API, so nothing links libcuda.
#include "raw_kernel.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "course/nvrtc_error.hpp"

namespace lesson06 {

// One compiled kernel: the loaded library owns the code; the kernel handle is
// valid while the library stays loaded, so they live and die together.
struct raw_kernel::compiled {
    struct unload {
        void operator()(cudaLibrary_t library) const noexcept { cudaLibraryUnload(library); }
    };
    std::unique_ptr<std::remove_pointer_t<cudaLibrary_t>, unload> library;
    cudaKernel_t kernel = nullptr;
    std::string name;          // the name expression asked for
    std::string lowered_name;  // the symbol NVRTC gave it
};

namespace {

std::atomic<std::size_t> compile_count{0};

struct destroy_program {
    void operator()(nvrtcProgram program) const noexcept { nvrtcDestroyProgram(&program); }
};
using program_handle = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, destroy_program>;

std::string program_log(nvrtcProgram program) {
    std::size_t size = 0;
    NVRTC_CHECK(nvrtcGetProgramLogSize(program, &size));
    std::string log(size, '\0');
    NVRTC_CHECK(nvrtcGetProgramLog(program, log.data()));
    if (!log.empty() && log.back() == '\0') log.pop_back();  // NVRTC counts the C terminator
    return log;
}

// "sm_90" for the current GPU: the CUBIN is machine code for exactly this
// architecture, so loading it costs no further compilation.
std::string current_arch() {
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return "sm_" + std::to_string(major) + std::to_string(minor);
}

// Compiles, loads and looks up one kernel. Throws compile_error with NVRTC's
// log when the source (or the name expression) does not compile.
std::shared_ptr<raw_kernel::compiled> compile(const std::string& source, const std::string& name,
                                              const std::vector<std::string>& options,
                                              const std::string& arch) {
    nvrtcProgram raw = nullptr;
    NVRTC_CHECK(nvrtcCreateProgram(&raw, source.c_str(), "raw_kernel.cu", 0, nullptr, nullptr));
    const program_handle program(raw);
    // The name expression makes NVRTC instantiate a template ("my_add<float>")
    // and remember the symbol it compiles it to. It works for extern "C"
    // kernels too, whose symbol is simply their name.
    NVRTC_CHECK(nvrtcAddNameExpression(program.get(), name.c_str()));

    std::vector<std::string> all_options = options;
    all_options.push_back("-arch=" + arch);
    std::vector<const char*> argv;
    for (const std::string& option : all_options) argv.push_back(option.c_str());
    ++compile_count;
    const nvrtcResult status = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
    // NVRTC_CHECK would say NVRTC_ERROR_COMPILATION and nothing more: what is
    // wrong, and where, is in the log.
    if (status != NVRTC_SUCCESS) throw compile_error(status, name, program_log(program.get()));

    const char* lowered = nullptr;  // owned by the program: copied before it is destroyed
    NVRTC_CHECK(nvrtcGetLoweredName(program.get(), name.c_str(), &lowered));
    std::size_t size = 0;
    NVRTC_CHECK(nvrtcGetCUBINSize(program.get(), &size));
    std::string cubin(size, '\0');
    NVRTC_CHECK(nvrtcGetCUBIN(program.get(), cubin.data()));

    auto result = std::make_shared<raw_kernel::compiled>();
    result->name = name;
    result->lowered_name = lowered;
    cudaLibrary_t library = nullptr;
    CUDA_CHECK(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    result->library.reset(library);  // owned from here on: unloaded even if the lookup throws
    CUDA_CHECK(cudaLibraryGetKernel(&result->kernel, library, result->lowered_name.c_str()));
    return result;
}

// The key of a cache entry: every part, each preceded by its length, so that
// no two different lists of parts give the same key ({"-DA", "-DB"} and
// {"-DA-DB"} differ).
std::string cache_key(const std::string& source, const std::string& name,
                      const std::vector<std::string>& options, const std::string& arch) {
    std::string key;
    const auto add = [&key](const std::string& part) {
        key += std::to_string(part.size());
        key += ':';
        key += part;
    };
    add(arch);
    add(name);
    add(source);
    for (const std::string& option : options) add(option);
    return key;
}

// The process-wide cache. Entries are never evicted: a program compiles a
// handful of kernels. The lock is held while compiling, so two threads asking
// for the same kernel at once compile it once.
class kernel_cache {
public:
    std::shared_ptr<const raw_kernel::compiled> get(const std::string& source, const std::string& name,
                                                    const std::vector<std::string>& options) {
        const std::string arch = current_arch();
        const std::string key = cache_key(source, name, options, arch);
        std::lock_guard<std::mutex> lock(mutex_);
        if (const auto it = entries_.find(key); it != entries_.end()) return it->second;
        auto entry = compile(source, name, options, arch);  // a throw stores nothing
        entries_.emplace(key, entry);
        return entry;
    }

private:
    std::mutex mutex_;
    std::map<std::string, std::shared_ptr<const raw_kernel::compiled>> entries_;
};

kernel_cache& cache() {
    static kernel_cache instance;  // made on first use, thread-safe
    return instance;
}

}  // namespace

raw_kernel::raw_kernel(const std::string& source, const std::string& name,
                       const std::vector<std::string>& options)
    : compiled_(cache().get(source, name, options)) {}

const std::string& raw_kernel::name() const { return compiled_->name; }
const std::string& raw_kernel::lowered_name() const { return compiled_->lowered_name; }
cudaKernel_t raw_kernel::handle() const { return compiled_->kernel; }

std::size_t raw_kernel::compilations() { return compile_count.load(); }

void raw_kernel::launch_with(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                             void** args) const {
    // cudaLaunchKernel takes a kernel handle from the library API as well as a
    // __global__ function's address; it copies the arguments before it
    // returns. It reports a refused launch (too many threads, too much shared
    // memory) as its return value. The handle goes in as it is (it converts
    // to const void*): before CUDA 12.5, that picks course/library_compat.hpp's
    // overload, which launches it through the driver.
    CUDA_CHECK(cudaLaunchKernel(compiled_->kernel, grid, block, args, shared_bytes, stream));
}

}  // namespace lesson06
