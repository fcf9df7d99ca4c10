#include "course/testing/student_modules.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "course/testing/harness.hpp"
#include "course/testing/param_layout.hpp"
#include "../driver_function.hpp"

namespace course::testing {

namespace {

using detail::driver_function;

// A fat binary starts with this header (fatbinary.h of the toolkit's own
// tools; the layout has not changed since CUDA 4): the image the driver reads.
struct fat_header {
    std::uint32_t magic;
    std::uint16_t version;
    std::uint16_t header_bytes;
    std::uint64_t fat_bytes;
};
constexpr std::uint32_t fat_magic = 0xBA55ED50;

// The fat binaries of one `.nv_fatbin` section, one after another (an
// object holds one; a section joined from several holds more), each aligned
// to 8 bytes.
std::vector<std::string> fat_binaries(const std::string& section) {
    std::vector<std::string> found;
    std::size_t at = 0;
    while (at + sizeof(fat_header) <= section.size()) {
        fat_header h;
        std::memcpy(&h, section.data() + at, sizeof h);
        if (h.magic != fat_magic || h.header_bytes < sizeof h) break;
        const std::uint64_t total = std::uint64_t{h.header_bytes} + h.fat_bytes;
        if (total > section.size() - at) break;
        found.push_back(section.substr(at, total));
        at += (total + 7) / 8 * 8;
    }
    return found;
}

std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

// Every fat binary of the .fatbin files in `folder`, in the files' order.
std::vector<std::string> images_in(const std::filesystem::path& folder) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
        if (entry.path().extension() == ".fatbin") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<std::string> images;
    for (const auto& file : files)
        for (auto& image : fat_binaries(file_bytes(file))) images.push_back(std::move(image));
    return images;
}

}  // namespace

struct student_modules::driver {
    decltype(&cuModuleLoadData) load = driver_function<decltype(&cuModuleLoadData)>("cuModuleLoadData");
    decltype(&cuModuleUnload) unload = driver_function<decltype(&cuModuleUnload)>("cuModuleUnload");
    decltype(&cuModuleGetFunction) get_function =
        driver_function<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
    decltype(&cuFuncGetParamInfo) param_info =
        driver_function<decltype(&cuFuncGetParamInfo)>("cuFuncGetParamInfo", 12040);
    decltype(&cuFuncLoad) load_function = driver_function<decltype(&cuFuncLoad)>("cuFuncLoad", 12040);
    decltype(&cuLaunchKernel) launch = driver_function<decltype(&cuLaunchKernel)>("cuLaunchKernel");
    decltype(&cuFuncSetAttribute) set_attribute = driver_function<decltype(&cuFuncSetAttribute)>("cuFuncSetAttribute");

    static const driver& get() {
        static const driver d;
        return d;
    }
};

std::unique_ptr<student_modules> student_modules::from_grader(std::string& why_not) {
    const char* named = std::getenv(student_device_code_variable);
    if (!named || !*named) {
        why_not = "the grader named no device code of yours (this program was not started by the grader)";
        return nullptr;
    }
    const std::filesystem::path folder = named;
    std::error_code ec;
    if (std::filesystem::exists(folder / unreadable_device_code_file, ec)) {
        std::string said = file_bytes(folder / unreadable_device_code_file);
        while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
        why_not = "the grader could not read the device code of your library: " + said.substr(0, 500);
        return nullptr;
    }
    std::vector<std::string> images = images_in(folder);
    if (images.empty()) {
        why_not = "no device code was compiled from your source files (no kernel)";
        return nullptr;
    }
    auto modules = std::make_unique<student_modules>(std::move(images));
    modules->folder_ = folder;
    return modules;
}

bool student_modules::library_holds(const std::string& mangled) const {
    if (folder_.empty()) return false;
    bool held = false;
    for (const std::string& image : images_in(folder_ / library_sections_folder)) {
        CUmodule module = nullptr;
        if (driver_.load(&module, image.data()) != CUDA_SUCCESS) continue;
        CUfunction function = nullptr;
        held = held || driver_.get_function(&function, module, mangled.c_str()) == CUDA_SUCCESS;
        driver_.unload(module);
    }
    return held;
}

student_modules::student_modules(std::vector<std::string> images)
    : images_(std::move(images)), driver_(driver::get()) {}

student_modules::~student_modules() { unload(); }

void student_modules::unload() {
    for (CUmodule m : loaded_) driver_.unload(m);
    loaded_.clear();
}

bool student_modules::reload(std::string& why_not) {
    unload();
    CUresult last = CUDA_SUCCESS;
    for (const std::string& image : images_) {
        CUmodule module = nullptr;
        // An object built for other GPUs only has nothing for this one.
        if (const CUresult r = driver_.load(&module, image.data()); r != CUDA_SUCCESS) {
            last = r;
            continue;
        }
        loaded_.push_back(module);
    }
    if (!loaded_.empty() || images_.empty()) return true;
    why_not = "none of your library's device code loads on this GPU (CUDA driver error " +
              std::to_string(static_cast<int>(last)) + "): it was built for other GPUs";
    return false;
}

void student_modules::give(const std::string& mangled, CUfunction function) { given_.emplace_back(mangled, function); }

std::optional<student_kernel> student_modules::kernel(const std::string& mangled) const {
    auto ready = [&](CUfunction function) {
        student_kernel k;
        k.function = function;
        driver_.load_function(k.function);
        param_layout layout;
        const CUresult r = read_param_layout(driver_.param_info, k.function, layout);
        // CUDA_ERROR_INVALID_VALUE with nothing read: a kernel that takes no parameters.
        if (r == CUDA_SUCCESS || (r == CUDA_ERROR_INVALID_VALUE && layout.empty()))
            k.argument_bytes = argument_bytes(layout);
        return k;
    };
    for (CUmodule module : loaded_) {
        CUfunction function = nullptr;
        if (driver_.get_function(&function, module, mangled.c_str()) == CUDA_SUCCESS) return ready(function);
    }
    for (const auto& [name, function] : given_)
        if (name == mangled) return ready(function);
    return std::nullopt;
}

CUresult student_modules::set_attribute(const student_kernel& kernel, CUfunction_attribute attribute,
                                        int value) const {
    return driver_.set_attribute(kernel.function, attribute, value);
}

CUresult student_modules::launch(const student_kernel& kernel, const std::uint32_t grid[3],
                                 const std::uint32_t block[3], std::uint32_t shared_bytes,
                                 std::vector<std::uint8_t>& arguments, cudaStream_t stream) const {
    std::size_t size = arguments.size();
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, arguments.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    // A kernel without parameters takes no buffer.
    return driver_.launch(kernel.function, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes,
                          reinterpret_cast<CUstream>(stream), nullptr, size > 0 ? extra : nullptr);
}

}  // namespace course::testing
