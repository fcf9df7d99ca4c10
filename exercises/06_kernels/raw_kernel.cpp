// Lesson 06, part 3: raw kernels compiled at run time.
// Read lessons/06_kernels/README.md first. Grade your work with:
//     grader run lesson06
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
#include <vector>

#include "course/nvrtc_error.hpp"

namespace lesson06 {

// One compiled kernel (given): the loaded library owns the code; the kernel
// handle is valid while the library stays loaded, so they live and die together.
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

// Given: one NVRTC program, made from the source by the constructor and
// destroyed with the object, on every way out (a throw included). get() is
// what the other nvrtc* calls take.
//     nvrtc_program program(source, "raw_kernel.cu");
//     NVRTC_CHECK(nvrtcAddNameExpression(program.get(), ...));
class nvrtc_program {
public:
    nvrtc_program(const std::string& source, const char* file_name) {
        NVRTC_CHECK(nvrtcCreateProgram(&program_, source.c_str(), file_name, 0, nullptr, nullptr));
    }
    ~nvrtc_program() { nvrtcDestroyProgram(&program_); }
    nvrtc_program(const nvrtc_program&) = delete;
    nvrtc_program& operator=(const nvrtc_program&) = delete;

    nvrtcProgram get() const { return program_; }

    // What the compiler said about the last compilation: the errors, each
    // with its line, and the warnings. Wanted while an error is already on
    // its way, so a log that cannot be read reads as "" instead of throwing
    // an error of its own in place of that one.
    std::string log() const {
        std::size_t with_terminator = 0;  // NVRTC counts the C string's '\0'
        if (nvrtcGetProgramLogSize(program_, &with_terminator) != NVRTC_SUCCESS || with_terminator < 2)
            return {};
        std::vector<char> text(with_terminator);
        if (nvrtcGetProgramLog(program_, text.data()) != NVRTC_SUCCESS) return {};
        return std::string(text.data(), with_terminator - 1);
    }

private:
    nvrtcProgram program_ = nullptr;
};

// TODO(lesson06): the steps, each its own small function:
//  1. the current GPU's architecture, "sm_90" (cudaGetDevice,
//     cudaDeviceGetAttribute with cudaDevAttrComputeCapabilityMajor/Minor);
//  2. compile: an nvrtc_program (above), nvrtcAddNameExpression(name), count
//     the compilation (++compile_count), nvrtcCompileProgram with the options
//     plus "-arch=sm_XY"; on failure throw compile_error(status, name,
//     program.log());
//     then nvrtcGetLoweredName (copy it: NVRTC owns the text), the CUBIN
//     (nvrtcGetCUBINSize, nvrtcGetCUBIN), cudaLibraryLoadData and
//     cudaLibraryGetKernel with the lowered name;
//  3. a process-wide cache: a std::map from a key made of the source, the
//     name, the options and the architecture to
//     std::shared_ptr<const raw_kernel::compiled>, guarded by a std::mutex.
//     Only a successful compilation is stored.

}  // namespace

raw_kernel::raw_kernel(const std::string& source, const std::string& name,
                       const std::vector<std::string>& options) {
    // TODO(lesson06): compiled_ = the cache's entry for (source, name,
    // options), compiling it if it is not there yet. Then delete the line below.
    course::todo("lesson06::raw_kernel::raw_kernel in exercises/06_kernels/raw_kernel.cpp");
}

const std::string& raw_kernel::name() const { return compiled_->name; }
const std::string& raw_kernel::lowered_name() const { return compiled_->lowered_name; }
cudaKernel_t raw_kernel::handle() const { return compiled_->kernel; }

std::size_t raw_kernel::compilations() { return compile_count.load(); }

void raw_kernel::launch_with(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                             void** args) const {
    // TODO(lesson06): cudaLaunchKernel with the kernel handle itself as its
    // first argument (a cudaKernel_t converts to the const void* it takes),
    // checked with CUDA_CHECK: it returns a refused launch as its status.
    // Then delete the line below.
    course::todo("lesson06::raw_kernel::launch in exercises/06_kernels/raw_kernel.cpp");
}

}  // namespace lesson06
