#pragma once
// Helpers for the batch tests: real files in a temporary folder, and zips
// made with libarchive the way Gradescope's export is laid out.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#if COURSE_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

namespace batch_test {

namespace fs = std::filesystem;

inline void write(const fs::path& file, const std::string& content) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
}

inline std::string read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every path under `root` with its size and modification time: equal
// snapshots before and after mean nothing was written there.
inline std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> snapshot(const fs::path& root) {
    std::map<std::string, std::pair<std::uintmax_t, fs::file_time_type>> files;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        const auto status = e.symlink_status();
        const std::uintmax_t size = fs::is_regular_file(status) ? e.file_size() : 0;
        files[e.path().string()] = {size, fs::is_symlink(status) ? fs::file_time_type{} : e.last_write_time()};
    }
    return files;
}

// True when some line contains `part`; the lines are printed when not.
inline ::testing::AssertionResult has_line(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    auto failure = ::testing::AssertionFailure() << "no line contains \"" << part << "\"; the lines are:";
    for (const auto& l : lines) failure << "\n  " << l;
    return failure;
}

struct zip_item {
    std::string path;
    std::string content;
};

inline bool can_make_zips() {
#if COURSE_HAVE_LIBARCHIVE
    return true;
#else
    return false;
#endif
}

// Writes the entries as they are named, ".." and leading "/" included: the
// zips a careless or hostile tool might make.
inline void make_zip(const fs::path& file, const std::vector<zip_item>& items) {
#if COURSE_HAVE_LIBARCHIVE
    archive* a = archive_write_new();
    ASSERT_EQ(archive_write_set_format_zip(a), ARCHIVE_OK);
    ASSERT_EQ(archive_write_open_filename(a, file.c_str()), ARCHIVE_OK) << archive_error_string(a);
    for (const auto& item : items) {
        archive_entry* e = archive_entry_new();
        archive_entry_set_pathname(e, item.path.c_str());
        archive_entry_set_size(e, static_cast<la_int64_t>(item.content.size()));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK) << item.path << ": " << archive_error_string(a);
        ASSERT_EQ(archive_write_data(a, item.content.data(), item.content.size()),
                  static_cast<la_ssize_t>(item.content.size()));
        archive_entry_free(e);
    }
    ASSERT_EQ(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);
#else
    (void)file;
    (void)items;
    GTEST_SKIP() << "built without libarchive (libarchive-dev): no zip can be made or read";
#endif
}

}  // namespace batch_test
