#include "system/process_tree.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace grader {

namespace {

// The parent of one process, from /proc/PID/stat: "PID (COMM) STATE PPID ...".
// COMM may hold spaces and parentheses, so the fields are read after its last ')'.
int parent_of(const std::filesystem::path& stat_file) {
    std::ifstream in(stat_file);
    const std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 4 >= line.size()) return -1;
    const char* ppid = line.data() + close + 4;  // past ") S "
    int value = -1;
    std::from_chars(ppid, line.data() + line.size(), value);
    return value;
}

}  // namespace

std::vector<int> process_and_descendants(int root, const std::filesystem::path& proc) {
    std::multimap<int, int> children;  // parent -> child
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
        const std::string name = entry.path().filename().string();
        int pid = 0;
        const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (err != std::errc{} || end != name.data() + name.size()) continue;
        if (const int parent = parent_of(entry.path() / "stat"); parent > 0) children.emplace(parent, pid);
    }
    std::vector<int> tree{root};
    for (std::size_t i = 0; i < tree.size(); ++i) {
        const auto [first, last] = children.equal_range(tree[i]);
        for (auto it = first; it != last; ++it) tree.push_back(it->second);
    }
    return tree;
}

}  // namespace grader
