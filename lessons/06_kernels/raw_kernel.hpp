#pragma once
// Lesson 06 contract, part 3: raw kernels, CuPy's RawKernel in C++.
// Implemented in exercises/06_kernels/raw_kernel.cpp (the class) and
// exercises/06_kernels/my_add.cpp (the seed's example, through the class).
//
// A raw_kernel is CUDA C++ source text compiled while the program runs:
//
//     const lesson06::raw_kernel add(source, "my_add<float>");
//     add.launch(dim3(blocks), dim3(threads), 0, stream, x1, x2, y, n);
//
// Compiling takes tens to hundreds of milliseconds, so it happens once per
// process for the same source, name and options: every raw_kernel built
// from them shares one compiled kernel, found in a process-wide cache.
//
// Only cudart and NVRTC are linked, never libcuda: the compiled code is
// loaded with the runtime's library API (cudaLibraryLoadData), so the program
// still starts on a machine without an NVIDIA driver.
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <cstddef>
#include <memory>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "course/device_span.hpp"
#include "course/cuda_error.hpp"
#include "course/library_compat.hpp"  // cudaLibrary* before CUDA 12.5

namespace lesson06 {

// A compilation that failed (given). It is a course::cuda_error from the
// "nvrtc" API whose code is NVRTC's status; its message carries NVRTC's log,
// the part that says what is wrong and on which line:
//
//   raw_kernel.cpp:88: NVRTC_ERROR_COMPILATION: my_add did not compile:
//   raw_kernel.cu(4): error: identifier "x3" is undefined
class compile_error : public course::cuda_error {
public:
    compile_error(nvrtcResult status, const std::string& kernel, std::string log,
                  std::source_location where = std::source_location::current())
        : course::cuda_error("nvrtc", static_cast<int>(status), nvrtcGetErrorString(status),
                             kernel + " did not compile:\n" + log, "nvrtcCompileProgram(" + kernel + ")",
                             course::detail::file_name(where.file_name()), static_cast<int>(where.line())),
          log_(std::move(log)) {}

    // NVRTC's log, as it wrote it.
    const std::string& log() const noexcept { return log_; }

private:
    std::string log_;
};

class raw_kernel {
public:
    // Compiles `source` with NVRTC for the current GPU (options plus
    // -arch=sm_XY of its compute capability, giving a CUBIN), loads it with
    // cudaLibraryLoadData and finds the kernel called `name`.
    //
    // `name` is a name expression: "my_add" for an extern "C" kernel, or a
    // C++ name such as "my_add<float>" or "ops::scale<double>" for a kernel
    // template, which NVRTC instantiates and whose mangled ("lowered") name
    // it reports (nvrtcAddNameExpression, nvrtcGetLoweredName).
    //
    // The first raw_kernel for a (source, name, options, GPU architecture)
    // compiles; later ones, in any thread, reuse the compiled kernel from the
    // process-wide cache and compile nothing. A failed compilation throws
    // compile_error with NVRTC's log and is not cached; other failing calls
    // throw course::cuda_error.
    raw_kernel(const std::string& source, const std::string& name,
               const std::vector<std::string>& options = {});

    // Launches the kernel with `grid` x `block` threads, `shared_bytes` bytes
    // of dynamic shared memory (extern __shared__) per block, on `stream`, and
    // returns without waiting. `args` are passed by value, in order: each must
    // have exactly the type of the kernel's parameter (a float* for float*, an
    // unsigned long long for a 64-bit size). A launch the GPU refuses throws
    // course::cuda_error.
    template <class... Args>
    void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                const Args&... args) const {
        static_assert((std::is_trivially_copyable_v<Args> && ...),
                      "kernel arguments are copied byte for byte: pass pointers and numbers");
        if constexpr (sizeof...(Args) == 0) {
            launch_with(grid, block, shared_bytes, stream, nullptr);
        } else {
            // What cudaLaunchKernel wants: one pointer to each argument's value.
            void* pointers[] = {const_cast<void*>(static_cast<const void*>(&args))...};
            launch_with(grid, block, shared_bytes, stream, pointers);
        }
    }

    const std::string& name() const;          // as given: "my_add<float>"
    const std::string& lowered_name() const;  // as compiled: "_Z6my_addIfEvPKT_S2_PS0_y"
    cudaKernel_t handle() const;              // the same for every raw_kernel of one cache entry

    // How many times raw_kernel has run NVRTC in this process (failed
    // compilations included): the tests watch it to see the cache work.
    static std::size_t compilations();

    // The compiled, loaded kernel (defined in raw_kernel.cpp); shared by the
    // cache and every raw_kernel made from it.
    struct compiled;

private:
    void launch_with(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                     void** args) const;

    std::shared_ptr<const compiled> compiled_;
};

// The seed's RawKernel example, my_add: y[i] = x1[i] + x2[i] for every
// i < y.size(), compiled at run time by a raw_kernel from a source string
// (exercises/06_kernels/my_add.cpp), one thread per element,
// `threads_per_block` threads a block (the test runs the seed's 25 elements
// in one block of 512: the kernel itself must leave the other 487 idle).
// x1, x2 and y have the same size; empty y launches nothing.
void my_add(course::device_span<const float> x1, course::device_span<const float> x2,
            course::device_span<float> y, int threads_per_block = 512,
            cudaStream_t stream = nullptr);
// The double version comes from the same kernel template (name expression
// "my_add<double>").
void my_add(course::device_span<const double> x1, course::device_span<const double> x2,
            course::device_span<double> y, int threads_per_block = 512,
            cudaStream_t stream = nullptr);

}  // namespace lesson06
