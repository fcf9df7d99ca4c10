#pragma once
// A size as `grader batch --memory` takes it: "16G", "4096M", "1.5T" (no
// unit: GiB).
#include <string>

namespace grader {

// Bytes; throws user_error (usage_error) naming the problem and the form.
long long parse_memory(const std::string& text);

}  // namespace grader
