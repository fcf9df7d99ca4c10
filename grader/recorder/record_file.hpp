#pragma once
// The record file the recorder writes: one JSON object a line. CUPTI hands
// back full buffers from a thread of its own, and the API calls and marks
// come from the test's threads: one lock keeps lines whole.
#include <nlohmann/json.hpp>

namespace course_recorder {

// Opens `path` for writing (closing any file open before); false if it cannot.
bool open_record(const char* path);
void write_line(const nlohmann::json& line);
void close_record();

}  // namespace course_recorder
