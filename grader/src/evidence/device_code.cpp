#include "evidence/device_code.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <vector>

#include "course/testing/harness.hpp"

#ifdef COURSE_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

namespace grader {

std::filesystem::path kept_device_code_dir(const std::filesystem::path& library) {
    return library.parent_path() / (library.stem().string() + ".device_code");
}

#ifdef COURSE_HAVE_LIBELF

namespace {

using course::testing::library_sections_folder;

// A library's device code is small (lesson07's is under a megabyte); a
// section larger than this is not nvcc's, and is not copied.
constexpr std::size_t largest_section_bytes = std::size_t{256} << 20;

struct file_descriptor {
    int fd = -1;
    explicit file_descriptor(int f) : fd(f) {}
    ~file_descriptor() {
        if (fd >= 0) close(fd);
    }
    file_descriptor(const file_descriptor&) = delete;
    file_descriptor& operator=(const file_descriptor&) = delete;
};

struct elf_closer {
    void operator()(Elf* e) const { elf_end(e); }
};
using elf_handle = std::unique_ptr<Elf, elf_closer>;

// Each `.nv_fatbin` section of one object, written out; false after an
// error (in `result`).
bool write_sections(Elf* object, const std::filesystem::path& folder, device_code_result& result) {
    std::size_t names = 0;
    if (elf_getshdrstrndx(object, &names) != 0) return true;  // not an object with sections: nothing of ours
    for (Elf_Scn* section = elf_nextscn(object, nullptr); section; section = elf_nextscn(object, section)) {
        GElf_Shdr header;
        if (!gelf_getshdr(section, &header) || header.sh_type == SHT_NOBITS) continue;
        const char* name = elf_strptr(object, names, header.sh_name);
        if (!name || std::string_view(name) != ".nv_fatbin") continue;
        if (header.sh_size > largest_section_bytes) {
            result.error = "a .nv_fatbin section of " + std::to_string(header.sh_size) + " bytes is not nvcc's";
            return false;
        }
        Elf_Data* data = elf_rawdata(section, nullptr);
        if (!data || !data->d_buf || data->d_size == 0) continue;
        const auto file = folder / (std::to_string(result.fat_binaries + 1) + ".fatbin");
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(static_cast<const char*>(data->d_buf), static_cast<std::streamsize>(data->d_size));
        if (!out) {
            result.error = "could not write " + file.string();
            return false;
        }
        ++result.fat_binaries;
    }
    return true;
}

// Each <source>.fatbin the build kept for the library, copied into
// `folder`; false after an error (in `result`).
bool write_kept_fatbins(const std::filesystem::path& library, const std::filesystem::path& folder,
                        device_code_result& result) {
    const auto kept = kept_device_code_dir(library);
    std::error_code ec;
    if (!std::filesystem::is_directory(kept, ec)) {
        result.error = "the device code nvcc made of your sources was not kept beside " + library.filename().string() +
                       " (build the course again)";
        return false;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(kept, ec))
        if (entry.path().extension() == ".fatbin" && entry.is_regular_file(ec)) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        if (std::filesystem::file_size(file, ec) > largest_section_bytes) {
            result.error = file.filename().string() + " is larger than any device code nvcc makes of a source";
            return false;
        }
        const auto to = folder / (std::to_string(result.fat_binaries + 1) + ".fatbin");
        if (!std::filesystem::copy_file(file, to, std::filesystem::copy_options::overwrite_existing, ec)) {
            result.error = "could not write " + to.string();
            return false;
        }
        ++result.fat_binaries;
    }
    return true;
}

}  // namespace

device_code_result write_device_code(const std::filesystem::path& library, const std::filesystem::path& folder) {
    device_code_result result;
    if (elf_version(EV_CURRENT) == EV_NONE) {
        result.error = "libelf is out of date";
        return result;
    }
    const file_descriptor file(open(library.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.fd < 0) {
        result.error = "cannot open " + library.string();
        return result;
    }
    std::error_code ec;
    std::filesystem::create_directories(folder / library_sections_folder, ec);
    if (!write_kept_fatbins(library, folder, result)) return result;
    // The library's own sections, numbered apart from the kept fat binaries.
    device_code_result sections;
    const auto finish = [&] {
        if (result.error.empty()) result.error = sections.error;
        return result;
    };
    const elf_handle top(elf_begin(file.fd, ELF_C_READ, nullptr));
    if (!top) {
        result.error = library.string() + " is not a library or an object: " + elf_errmsg(-1);
        return result;
    }
    if (elf_kind(top.get()) == ELF_K_ELF) {
        write_sections(top.get(), folder / library_sections_folder, sections);
        return finish();
    }
    if (elf_kind(top.get()) != ELF_K_AR) {
        result.error = library.string() + " is not a library or an object";
        return result;
    }
    // A static library: each member in turn (elf_next moves the archive on).
    Elf_Cmd command = ELF_C_READ;
    while (Elf* member = elf_begin(file.fd, command, top.get())) {
        const elf_handle held(member);
        if (elf_kind(member) == ELF_K_ELF && !write_sections(member, folder / library_sections_folder, sections))
            return finish();
        command = elf_next(member);
    }
    return finish();
}

bool reads_device_code() { return true; }

#else

device_code_result write_device_code(const std::filesystem::path&, const std::filesystem::path&) {
    return {0, "the grader was built without libelf (install libelf-dev and build again)"};
}

bool reads_device_code() { return false; }

#endif

}  // namespace grader
