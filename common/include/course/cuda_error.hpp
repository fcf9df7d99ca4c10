#pragma once
// The exceptions of the course's checks (course/error.hpp and the driver,
// NVRTC and cuBLAS headers): include this where they are caught or thrown.
#include <stdexcept>
#include <string>

#include "course/error.hpp"

namespace course {

// A failed CUDA call: which library, the status code and its name, the
// library's explanation, the text of the call and where it was made.
class cuda_error : public std::runtime_error {
public:
    cuda_error(std::string api, int code, std::string code_name, std::string message,
               std::string call, std::string file, int line);

    const std::string& api() const noexcept { return api_; }  // "runtime", "driver", ...
    int code() const noexcept { return code_; }
    const std::string& code_name() const noexcept { return code_name_; }
    const std::string& message() const noexcept { return message_; }
    const std::string& call() const noexcept { return call_; }
    const std::string& file() const noexcept { return file_; }
    int line() const noexcept { return line_; }

private:
    std::string api_;
    int code_;
    std::string code_name_;
    std::string message_;
    std::string call_;
    std::string file_;
    int line_;
};

// Thrown by the skeletons where a student still has work to do, like Rust's
// todo!(): the program runs, and the grader reports what is unfinished.
class not_implemented : public std::logic_error {
public:
    explicit not_implemented(const std::string& what);
};

}  // namespace course
