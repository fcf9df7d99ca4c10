#pragma once
// Lesson 03 contract, part 1: compiling CUDA C++ at run time with NVRTC, and
// keeping what was compiled. Implemented in exercises/03_saxpy_driver/nvrtc_compile.cpp.
// Nothing here needs a GPU: NVRTC is a compiler library, so these steps are
// graded on any machine.
#include <nvrtc.h>

#include <cstdint>
#include <filesystem>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "course/cuda_error.hpp"

namespace lesson03 {

// --- Step 1: NVRTC -----------------------------------------------------------

// A compilation that failed (given). It is a course::cuda_error from the
// "nvrtc" API whose code is NVRTC's status, and it carries the compiler's log,
// which is the part that says what is wrong and on which line:
//
//   nvrtc_compile.cpp:52: NVRTC_ERROR_COMPILATION: saxpy.cu did not compile:
//   saxpy.cu(4): error: expected an expression ...
class compile_error : public course::cuda_error {
public:
    compile_error(nvrtcResult status, const std::string& program, std::string log,
                  std::source_location where = std::source_location::current())
        : course::cuda_error("nvrtc", static_cast<int>(status), nvrtcGetErrorString(status),
                             program + " did not compile:\n" + log, "nvrtcCompileProgram(" + program + ")",
                             course::detail::file_name(where.file_name()), static_cast<int>(where.line())),
          log_(std::move(log)) {}

    // NVRTC's log, as it wrote it: one "file(line): error: ..." line per problem.
    const std::string& log() const noexcept { return log_; }

private:
    std::string log_;
};

// Compiles `source` (its file name for messages is `name`, e.g. "saxpy.cu")
// with NVRTC and returns the PTX: the text of the kernels in NVIDIA's virtual
// instruction set, without NVRTC's terminating NUL. `options` are nvcc-style
// flags; "--gpu-architecture=compute_90" (or "-arch=compute_90") picks the
// virtual architecture.
//
// Throws compile_error, with NVRTC's status and log, when the compilation
// fails (a syntax error: NVRTC_ERROR_COMPILATION; an unknown option:
// NVRTC_ERROR_INVALID_OPTION). Any other failing NVRTC call throws
// course::cuda_error (NVRTC_CHECK). The program is destroyed either way.
std::string compile_to_ptx(const std::string& source, const std::string& name,
                           const std::vector<std::string>& options);

// The same, but returns the CUBIN: machine code (an ELF image) for one real
// architecture, which `options` must name ("-arch=sm_90"). Loading a CUBIN
// costs no further compilation, loading PTX makes the driver compile it.
// Throws std::invalid_argument when NVRTC produced no CUBIN (the options named
// a virtual architecture such as compute_90, or none).
std::string compile_to_cubin(const std::string& source, const std::string& name,
                             const std::vector<std::string>& options);

// --- Step 5 (beyond the seed): a compiled-kernel cache -------------------------

// FNV-1a, 64 bits: hash = (hash ^ byte) * 0x100000001b3 for every byte,
// starting from `hash`. Start from the result of an earlier call to hash more
// bytes as if they followed.
inline constexpr std::uint64_t fnv1a_64_offset = 0xcbf29ce484222325ull;
std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t hash = fnv1a_64_offset);

// What identifies a compiled kernel: the source, every option in order, the
// architecture ("sm_90") and the NVRTC version. Equal inputs give equal keys.
// Each part is followed by a separator ('\0'), so that moving text from one
// part to the next ({"-DA", "-DB"} against {"-DA-DB"}) changes the key.
std::uint64_t kernel_cache_key(const std::string& source, const std::vector<std::string>& options,
                               const std::string& arch);

// CUBINs kept on disk between runs, so that a program's second start skips
// NVRTC. Each entry is one file in `directory` whose name comes from
// kernel_cache_key. The file holds the CUBIN with its length and an FNV-1a
// checksum, so that a damaged entry (truncated, overwritten, empty) is
// recognised, ignored and rebuilt. Entries are written to a temporary file and
// renamed into place, so that a program running at the same time never reads
// half an entry.
class kernel_cache {
public:
    // The directory is created (with its parents) when it does not exist. A
    // cache is only a shortcut: when the directory cannot be created or
    // written, cubin() still compiles and returns; it just stores nothing.
    explicit kernel_cache(std::filesystem::path directory);

    struct entry {
        std::string cubin;  // the ELF image, ready for cuModuleLoadData
        bool hit;           // true: read from the cache; false: compiled by NVRTC now
    };

    // The CUBIN of `source` compiled with `options` for `arch` ("sm_90"): from
    // the cache when an intact entry exists, otherwise compiled with
    // compile_to_cubin(source, name, options + "-arch=<arch>") and stored.
    // Compile errors propagate (compile_error); nothing is stored for them.
    entry cubin(const std::string& source, const std::string& name,
                const std::vector<std::string>& options, const std::string& arch) const;

    const std::filesystem::path& directory() const noexcept { return directory_; }

private:
    std::filesystem::path directory_;
};

// Where saxpy_driver keeps its kernels unless told otherwise (given): the
// environment variable COURSE_KERNEL_CACHE when it is set (empty: no cache),
// else build/kernel_cache in the course's build folder.
std::filesystem::path default_kernel_cache_dir();

}  // namespace lesson03
