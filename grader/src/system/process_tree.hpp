#pragma once
// The processes a child started: a sandboxed test program runs as a
// grandchild of the grader (bubblewrap in between, in a PID namespace of its
// own), so asking the driver about "the test's processes" means the whole
// tree under the child the grader started, in the grader's own PID numbers.
#include <filesystem>
#include <vector>

namespace grader {

// `root` and every process descended from it, read from `proc` (procfs).
// Processes that end while it reads are simply left out.
std::vector<int> process_and_descendants(int root, const std::filesystem::path& proc = "/proc");

}  // namespace grader
