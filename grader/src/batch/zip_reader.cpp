#include "batch/zip_reader.hpp"

#include <fmt/format.h>

#include <memory>

#include "system/user_error.hpp"

#if COURSE_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

namespace grader {

bool can_read_zip(std::string* why) {
#if COURSE_HAVE_LIBARCHIVE
    (void)why;
    return true;
#else
    if (why)
        *why = "this grader was built without libarchive, which reads zip files. Install it (Debian/Ubuntu: sudo "
               "apt install libarchive-dev), then configure and build again (cmake --preset default && cmake "
               "--build build); or unzip the export and pass the folder instead";
    return false;
#endif
}

bool leaves_its_folder(const std::string& path) {
    if (path.empty()) return false;
    if (path.front() == '/' || path.front() == '\\') return true;
    if (path.size() >= 2 && path[1] == ':') return true;  // a Windows drive: C:/x
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find_first_of("/\\", start), path.size());
        if (path.compare(start, end - start, "..") == 0 && end - start == 2) return true;
        start = end + 1;
    }
    return false;
}

#if COURSE_HAVE_LIBARCHIVE

namespace {

struct archive_closer {
    void operator()(archive* a) const noexcept { archive_read_free(a); }
};
using archive_handle = std::unique_ptr<archive, archive_closer>;

[[noreturn]] void bad_zip(const std::filesystem::path& zip, const std::string& why) {
    throw user_error(usage_error, fmt::format("cannot read the zip {}: {}. If it came from Gradescope, download "
                                              "it again (Review Grades > Export Submissions); or unzip it and "
                                              "pass the folder",
                                              zip.string(), why));
}

std::string error_of(archive* a) {
    const char* text = archive_error_string(a);
    return text ? text : "unknown libarchive error";
}

// "./a/b" -> "a/b", and Windows' backslashes as slashes.
std::string normalized(std::string path) {
    for (char& c : path)
        if (c == '\\') c = '/';
    while (path.rfind("./", 0) == 0) path.erase(0, 2);
    return path;
}

}  // namespace

std::vector<found_file> read_zip(const std::filesystem::path& zip, const zip_limits& limits, const zip_wants& wants) {
    archive_handle a(archive_read_new());
    if (!a) bad_zip(zip, "out of memory");
    archive_read_support_format_zip(a.get());  // zip only: nothing else the export could be
    if (archive_read_open_filename(a.get(), zip.c_str(), 64 * 1024) != ARCHIVE_OK) bad_zip(zip, error_of(a.get()));

    std::vector<found_file> entries;
    std::uintmax_t count = 0, total = 0;
    const auto add_to_total = [&](std::uintmax_t bytes) {
        total += bytes;
        if (total > limits.max_total_bytes)
            throw user_error(usage_error,
                             fmt::format("the zip {} would unpack to more than {} (the limit): not read. An export of "
                                         "source files is far smaller; if this one is real, unzip it yourself and "
                                         "pass the folder",
                                         zip.string(), human_size(limits.max_total_bytes)));
    };
    archive_entry* entry = nullptr;
    for (;;) {
        const int status = archive_read_next_header(a.get(), &entry);
        if (status == ARCHIVE_EOF) break;
        if (status == ARCHIVE_FATAL) bad_zip(zip, error_of(a.get()));
        if (++count > limits.max_entries)
            throw user_error(usage_error, fmt::format("the zip {} holds more than {} entries (the limit): not read. "
                                                      "If it is real, unzip it yourself and pass the folder",
                                                      zip.string(), limits.max_entries));
        const char* utf8 = archive_entry_pathname_utf8(entry);
        const char* raw = archive_entry_pathname(entry);
        const std::string path = normalized(utf8 ? utf8 : raw ? raw : "");
        const mode_t type = archive_entry_filetype(entry);
        if (type == AE_IFDIR || path.empty() || path.back() == '/') continue;

        found_file f;
        f.path = path;
        f.type = type == AE_IFREG ? found_file::kind::regular
                 : type == AE_IFLNK ? found_file::kind::symlink
                                    : found_file::kind::other;
        f.unsafe_path = leaves_its_folder(path);
        f.damaged = status != ARCHIVE_OK && status != ARCHIVE_WARN;
        const bool size_known = archive_entry_size_is_set(entry);
        f.size = size_known ? static_cast<std::uintmax_t>(std::max<la_int64_t>(archive_entry_size(entry), 0)) : 0;
        add_to_total(f.size);

        const std::optional<std::uintmax_t> limit =
            f.type == found_file::kind::regular && !f.unsafe_path && !f.damaged ? wants(path) : std::nullopt;
        if (limit && (!size_known || f.size <= *limit)) {
            // Decompress at most limit + 1 bytes: whatever the header claimed,
            // a larger entry is found out without inflating the rest of it.
            std::string content;
            char buffer[64 * 1024];
            for (;;) {
                const la_ssize_t n = archive_read_data(a.get(), buffer, sizeof buffer);
                if (n < 0) {
                    f.damaged = true;
                    break;
                }
                if (n == 0) break;
                content.append(buffer, static_cast<std::size_t>(n));
                if (!size_known) add_to_total(static_cast<std::uintmax_t>(n));
                if (content.size() > *limit) break;
            }
            if (!size_known || content.size() > f.size) f.size = content.size();
            if (!f.damaged && content.size() <= *limit) f.content = std::move(content);
        }
        entries.push_back(std::move(f));
    }
    return entries;
}

#else

std::vector<found_file> read_zip(const std::filesystem::path& zip, const zip_limits&, const zip_wants&) {
    std::string why;
    can_read_zip(&why);
    throw user_error(usage_error, fmt::format("cannot read {}: {}", zip.string(), why));
}

#endif

}  // namespace grader
