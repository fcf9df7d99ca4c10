#include "course/cuda_error.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "course/invalid_argument.hpp"

namespace course {

namespace {
std::string describe(const std::string& code_name, const std::string& message,
                     const std::string& call, const std::string& file, int line) {
    return file + ":" + std::to_string(line) + ": " + code_name + ": " + message + " [" + call + "]";
}
}  // namespace

cuda_error::cuda_error(std::string api, int code, std::string code_name, std::string message,
                       std::string call, std::string file, int line)
    : std::runtime_error(describe(code_name, message, call, file, line)),
      api_(std::move(api)),
      code_(code),
      code_name_(std::move(code_name)),
      message_(std::move(message)),
      call_(std::move(call)),
      file_(std::move(file)),
      line_(line) {}

not_implemented::not_implemented(const std::string& what)
    : std::logic_error("not implemented yet: " + what) {}

void todo(const char* what, int line) {
    const std::string part = what;
    const bool names_a_file = part.find(" in ") != std::string::npos;
    throw not_implemented(names_a_file ? part + ":" + std::to_string(line) : part);
}

void throw_invalid_argument(const char* format, ...) {
    std::va_list args;
    va_start(args, format);
    std::va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string message(length > 0 ? static_cast<std::size_t>(length) : 0, '\0');
    if (length > 0) std::vsnprintf(message.data(), message.size() + 1, format, again);
    va_end(again);
    throw std::invalid_argument(message);
}

namespace detail {

const char* file_name(const char* path) noexcept {
    const char* slash = std::strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void throw_runtime_error(cudaError_t status, const char* call, const char* file, int line) {
    throw cuda_error("runtime", static_cast<int>(status), cudaGetErrorName(status),
                     cudaGetErrorString(status), call, file_name(file), line);
}

}  // namespace detail
}  // namespace course
