#pragma once
// course::temp_dir: a new, empty directory of its own, removed with all it
// holds when the object goes out of scope. For tests and benchmarks that write
// files (a kernel cache, say): each gets a fresh place, however many run at
// the same time, and leaves nothing behind.
#include <stdlib.h>  // mkdtemp (POSIX)

#include <cerrno>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

namespace course {

class temp_dir {
public:
    // Creates <system temp folder>/<prefix>-XXXXXX, the X's made unique.
    explicit temp_dir(const std::string& prefix = "course") {
        std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
        if (mkdtemp(pattern.data()) == nullptr)
            throw std::system_error(errno, std::generic_category(), "mkdtemp(" + pattern + ")");
        path_.reset(new std::filesystem::path(pattern));
    }

    const std::filesystem::path& path() const noexcept { return *path_; }
    std::filesystem::path operator/(const std::filesystem::path& name) const { return path() / name; }

private:
    struct remove_all {
        void operator()(std::filesystem::path* path) const noexcept {
            std::error_code ignored;  // a destructor never throws
            std::filesystem::remove_all(*path, ignored);
            delete path;
        }
    };
    std::unique_ptr<std::filesystem::path, remove_all> path_;
};

}  // namespace course
