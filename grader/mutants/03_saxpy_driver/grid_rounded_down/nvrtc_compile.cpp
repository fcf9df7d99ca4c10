// Lesson 03: NVRTC and the compiled-kernel cache, reference solution.
#include "nvrtc_compile.hpp"

#include <unistd.h>  // getpid: a temporary file name no other process uses

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <type_traits>

#include "course/nvrtc_error.hpp"

namespace lesson03 {

namespace {

// nvrtcProgram is a pointer to NVRTC's program object. Owning it in a
// unique_ptr destroys it on every way out of a function, throws included.
struct destroy_program {
    void operator()(nvrtcProgram program) const noexcept { nvrtcDestroyProgram(&program); }
};
using program_handle = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, destroy_program>;

// NVRTC hands out text with its C terminator counted in the size.
void drop_terminator(std::string& text) {
    if (!text.empty() && text.back() == '\0') text.pop_back();
}

std::string program_log(nvrtcProgram program) {
    std::size_t size = 0;
    NVRTC_CHECK(nvrtcGetProgramLogSize(program, &size));
    std::string log(size, '\0');
    NVRTC_CHECK(nvrtcGetProgramLog(program, log.data()));
    drop_terminator(log);
    return log;
}

// Creates the program and compiles it. Returns it compiled, or throws
// compile_error with NVRTC's log.
program_handle compile(const std::string& source, const std::string& name,
                       const std::vector<std::string>& options) {
    nvrtcProgram raw = nullptr;
    // No headers given: the kernel includes nothing.
    NVRTC_CHECK(nvrtcCreateProgram(&raw, source.c_str(), name.c_str(), 0, nullptr, nullptr));
    program_handle program(raw);

    std::vector<const char*> argv;  // NVRTC takes options as C strings, like main()
    argv.reserve(options.size());
    for (const std::string& option : options) argv.push_back(option.c_str());
    const nvrtcResult status =
        nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
    // Not NVRTC_CHECK: it would say NVRTC_ERROR_COMPILATION and nothing more.
    // What is wrong, and on which line, is only in the log.
    if (status != NVRTC_SUCCESS) throw compile_error(status, name, program_log(program.get()));
    return program;
}

}  // namespace

std::string compile_to_ptx(const std::string& source, const std::string& name,
                           const std::vector<std::string>& options) {
    const program_handle program = compile(source, name, options);
    std::size_t size = 0;
    NVRTC_CHECK(nvrtcGetPTXSize(program.get(), &size));
    std::string ptx(size, '\0');
    NVRTC_CHECK(nvrtcGetPTX(program.get(), ptx.data()));
    drop_terminator(ptx);  // std::string keeps its own terminator (c_str())
    return ptx;
}

std::string compile_to_cubin(const std::string& source, const std::string& name,
                             const std::vector<std::string>& options) {
    const program_handle program = compile(source, name, options);
    std::size_t size = 0;
    NVRTC_CHECK(nvrtcGetCUBINSize(program.get(), &size));
    // For a virtual architecture NVRTC stops at PTX and reports a CUBIN of 0 bytes.
    if (size == 0)
        throw std::invalid_argument(
            name + ": NVRTC produced no CUBIN; the options must name a real architecture "
                   "(-arch=sm_90), not a virtual one (compute_90)");
    std::string cubin(size, '\0');  // binary: every byte counts, there is no terminator
    NVRTC_CHECK(nvrtcGetCUBIN(program.get(), cubin.data()));
    return cubin;
}

// --- The cache -----------------------------------------------------------------

std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t hash) {
    // unsigned char: a plain char may be signed, and a byte above 127 would
    // then be sign-extended into 64 bits before the xor.
    for (const unsigned char byte : bytes) {
        hash ^= byte;
        hash *= 0x100000001b3ull;
    }
    return hash;
}

std::uint64_t kernel_cache_key(const std::string& source, const std::vector<std::string>& options,
                               const std::string& arch) {
    int major = 0, minor = 0;
    NVRTC_CHECK(nvrtcVersion(&major, &minor));  // a new compiler may compile differently
    std::uint64_t hash = fnv1a_64_offset;
    const auto add = [&hash](std::string_view part) {
        hash = fnv1a_64(part, hash);
        hash = fnv1a_64(std::string_view("\0", 1), hash);  // where this part ends
    };
    add(std::to_string(major) + "." + std::to_string(minor));
    add(arch);
    add(source);
    for (const std::string& option : options) add(option);  // the list of any length goes last
    return hash;
}

namespace {

// An entry file: a fixed header, then the CUBIN.
//   8 bytes  magic "L03CUBIN"
//   8 bytes  the CUBIN's length
//   8 bytes  FNV-1a of the CUBIN
constexpr char entry_magic[8] = {'L', '0', '3', 'C', 'U', 'B', 'I', 'N'};
constexpr std::size_t header_bytes = 24;

std::filesystem::path entry_path(const std::filesystem::path& directory, std::uint64_t key) {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.cubin", static_cast<unsigned long long>(key));
    return directory / name;
}

void append_u64(std::string& out, std::uint64_t value) {
    char bytes[8];
    std::memcpy(bytes, &value, 8);
    out.append(bytes, 8);
}

std::uint64_t read_u64(const std::string& in, std::size_t offset) {
    std::uint64_t value = 0;
    std::memcpy(&value, in.data() + offset, 8);
    return value;
}

// The CUBIN in `file`, or nothing when the file is missing, unreadable or
// damaged in any way the header can tell.
std::optional<std::string> read_entry(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (bytes.size() < header_bytes || std::memcmp(bytes.data(), entry_magic, 8) != 0)
        return std::nullopt;
    const std::uint64_t size = read_u64(bytes, 8);
    if (size == 0 || size != bytes.size() - header_bytes) return std::nullopt;  // truncated
    std::string cubin = bytes.substr(header_bytes);
    if (fnv1a_64(cubin) != read_u64(bytes, 16)) return std::nullopt;  // overwritten
    return cubin;
}

// Writes the entry beside its final place, then renames it there: a rename
// within one file system is atomic, so a reader sees the old file or the
// whole new one, never half of it. Failing to store is not an error.
void write_entry(const std::filesystem::path& file, const std::string& cubin) {
    std::string bytes(entry_magic, 8);
    append_u64(bytes, cubin.size());
    append_u64(bytes, fnv1a_64(cubin));
    bytes += cubin;

    std::filesystem::path temporary = file;
    temporary += ".tmp." + std::to_string(::getpid()) + "." +
                 std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out.flush()) {
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            return;
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, file, error);
    if (error) std::filesystem::remove(temporary, error);
}

}  // namespace

kernel_cache::kernel_cache(std::filesystem::path directory) : directory_(std::move(directory)) {
    std::error_code ignored;  // a directory we cannot make only means nothing gets stored
    std::filesystem::create_directories(directory_, ignored);
}

kernel_cache::entry kernel_cache::cubin(const std::string& source, const std::string& name,
                                        const std::vector<std::string>& options,
                                        const std::string& arch) const {
    const std::filesystem::path file = entry_path(directory_, kernel_cache_key(source, options, arch));
    if (std::optional<std::string> cached = read_entry(file)) return {std::move(*cached), true};

    std::vector<std::string> with_arch = options;
    with_arch.push_back("-arch=" + arch);
    entry compiled{compile_to_cubin(source, name, with_arch), false};
    write_entry(file, compiled.cubin);
    return compiled;
}

std::filesystem::path default_kernel_cache_dir() {
    if (const char* chosen = std::getenv("COURSE_KERNEL_CACHE")) return chosen;  // "" turns it off
    // The build folder, passed in by lessons/03_saxpy_driver/CMakeLists.txt.
    return LESSON03_KERNEL_CACHE_DIR;
}

}  // namespace lesson03
