#pragma once
// Reading a zip without unpacking it (libarchive, optional at configure
// time: Debian/Ubuntu libarchive-dev). Only the entries asked for are
// decompressed, each at most to its limit, so a zip bomb costs nothing; the
// whole zip is still held to an entry count and a total unpacked size, and an
// entry whose path would leave the zip's folder is never read.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batch/submission_files.hpp"

namespace grader {

struct zip_limits {
    std::uintmax_t max_entries = 100'000;
    std::uintmax_t max_total_bytes = 4'000'000'000;  // unpacked, as the entries declare (or turn out to be)
};

// The byte limit to read an entry's content up to, or nullopt to leave it
// unread (its name and size are still listed).
using zip_wants = std::function<std::optional<std::uintmax_t>(const std::string& path)>;

// Every entry but folders, in the zip's order, as found_file (path without a
// leading "./"). An entry wanted but over its limit has no content and the
// size seen so far (at least limit + 1). Throws user_error naming the problem
// and the fix when the file cannot be opened as a zip, is damaged beyond an
// entry, or breaks a limit; without libarchive, says which package to install.
std::vector<found_file> read_zip(const std::filesystem::path& zip, const zip_limits& limits, const zip_wants& wants);

// True for "/x", "C:/x", "../x", "a/../../x": paths that an unpacker would put
// outside its folder.
bool leaves_its_folder(const std::string& path);

}  // namespace grader
