#pragma once
// The processes a child started: a sandboxed test program runs as a
// grandchild of the grader (bubblewrap in between, in a PID namespace of its
// own), so asking the driver about "the test's processes" means the whole
// tree under the child the grader started, in the grader's own PID numbers.
#include <filesystem>
#include <vector>

namespace grader {

// One process of a tree, as /proc/PID/stat gave it when the tree was read.
struct tree_process {
    int pid = -1;
    int parent = -1;   // -1: not read (it ended)
    int group = -1;    // its process group; -1: not read
    char state = 0;    // /proc's letter: 'R', 'S', 'T' stopped, 't' traced, 'Z'...; 0: not read
};

// `root` first, then every process descended from it, read from `proc`
// (procfs). Processes that end while it reads are simply left out; a root
// that has ended is still listed, unread.
std::vector<tree_process> process_tree(int root, const std::filesystem::path& proc = "/proc");

// The same, their PIDs only.
std::vector<int> process_and_descendants(int root, const std::filesystem::path& proc = "/proc");

// The processes that run `program` (the same file, wherever it is mounted:
// a sandbox shows it at a path of its own) among `root`'s descendants and
// its process group, `root` left out. A process whose parent ended is handed
// to init, out of the tree, but stays in the group unless it leaves it; in a
// sandbox's PID namespace it is handed to the namespace's first process,
// in the tree.
std::vector<int> processes_running(int root, const std::filesystem::path& program,
                                   const std::filesystem::path& proc = "/proc");

}  // namespace grader
