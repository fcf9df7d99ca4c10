// Lesson 03, part 1: NVRTC and the compiled-kernel cache.
// Read lessons/03_saxpy_driver/README.md first; the contract is in
// lessons/03_saxpy_driver/nvrtc_compile.hpp.
// Grade your work with:  grader run lesson03
#include "nvrtc_compile.hpp"

#include <cstdlib>
#include <stdexcept>

#include "course/nvrtc_error.hpp"

namespace lesson03 {

// --- Step 1: NVRTC ---------------------------------------------------------------

std::string compile_to_ptx(const std::string& source, const std::string& name,
                           const std::vector<std::string>& options) {
    // TODO(lesson03): 1. nvrtcCreateProgram(&program, source, name, 0, nullptr, nullptr),
    //                    and own the program so that nvrtcDestroyProgram runs on every
    //                    way out (a std::unique_ptr with a deleter);
    //                 2. nvrtcCompileProgram with the options as an array of C strings;
    //                 3. if that fails, read the log (nvrtcGetProgramLogSize,
    //                    nvrtcGetProgramLog) and throw compile_error(status, name, log);
    //                 4. nvrtcGetPTXSize, then nvrtcGetPTX into a std::string of that
    //                    size, and drop the terminating NUL NVRTC counts in the size.
    //                 Check the other NVRTC calls with NVRTC_CHECK.
    // Steps 1 to 3 are the same for compile_to_cubin: write them once, in a helper.
    course::todo("lesson03::compile_to_ptx in exercises/03_saxpy_driver/nvrtc_compile.cpp");
}

std::string compile_to_cubin(const std::string& source, const std::string& name,
                             const std::vector<std::string>& options) {
    // TODO(lesson03): compile as above, then nvrtcGetCUBINSize and nvrtcGetCUBIN. A
    // CUBIN is binary: keep every byte. A size of 0 means the options named no real
    // architecture: throw std::invalid_argument.
    course::todo("lesson03::compile_to_cubin in exercises/03_saxpy_driver/nvrtc_compile.cpp");
}

// --- Step 5: the kernel cache ----------------------------------------------------

std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t hash) {
    // TODO(lesson03): for every byte (as unsigned char): hash ^= byte; hash *= 0x100000001b3.
    course::todo("lesson03::fnv1a_64 in exercises/03_saxpy_driver/nvrtc_compile.cpp");
}

std::uint64_t kernel_cache_key(const std::string& source, const std::vector<std::string>& options,
                               const std::string& arch) {
    // TODO(lesson03): hash the NVRTC version (nvrtcVersion), the architecture, the source
    // and every option, each followed by a '\0', continuing from one hash to the next.
    course::todo("lesson03::kernel_cache_key in exercises/03_saxpy_driver/nvrtc_compile.cpp");
}

kernel_cache::kernel_cache(std::filesystem::path directory) : directory_(std::move(directory)) {
    // TODO(lesson03): create the directory and its parents (std::filesystem::create_directories,
    // the overload with a std::error_code: a cache that cannot be made is no error).
}

kernel_cache::entry kernel_cache::cubin(const std::string& source, const std::string& name,
                                        const std::vector<std::string>& options,
                                        const std::string& arch) const {
    // TODO(lesson03): 1. the entry's file: directory_ / (the key in hex + ".cubin");
    //                 2. if it exists and is intact (a header with a magic word, the CUBIN's
    //                    length and its FNV-1a checksum, all matching), return {cubin, true};
    //                 3. otherwise compile_to_cubin(source, name, options + "-arch=" + arch),
    //                    write header and CUBIN to a temporary file, rename it onto the
    //                    entry's file (std::filesystem::rename replaces atomically), and
    //                    return {cubin, false}.
    course::todo("lesson03::kernel_cache::cubin in exercises/03_saxpy_driver/nvrtc_compile.cpp");
}

// Given: where saxpy_driver keeps its kernels by default.
std::filesystem::path default_kernel_cache_dir() {
    if (const char* chosen = std::getenv("COURSE_KERNEL_CACHE")) return chosen;  // "" turns it off
    // The build folder, passed in by lessons/03_saxpy_driver/CMakeLists.txt.
    return LESSON03_KERNEL_CACHE_DIR;
}

}  // namespace lesson03
