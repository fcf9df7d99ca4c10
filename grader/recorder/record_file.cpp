#include "record_file.hpp"

#include <cstdio>
#include <mutex>
#include <string>

namespace course_recorder {

namespace {
std::mutex file_lock;
std::FILE* record_file = nullptr;
}  // namespace

bool open_record(const char* path) {
    std::lock_guard<std::mutex> hold(file_lock);
    if (record_file) std::fclose(record_file);
    record_file = std::fopen(path, "w");
    return record_file != nullptr;
}

void write_line(const nlohmann::json& line) {
    const std::string text = line.dump() + "\n";
    std::lock_guard<std::mutex> hold(file_lock);
    if (record_file) std::fwrite(text.data(), 1, text.size(), record_file);
}

void close_record() {
    std::lock_guard<std::mutex> hold(file_lock);
    if (record_file) std::fclose(record_file);
    record_file = nullptr;
}

}  // namespace course_recorder
