#include "system/process_tree.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace grader {

namespace {

// One process from /proc/PID/stat: "PID (COMM) STATE PPID ...". COMM may
// hold spaces and parentheses, so the fields are read after its last ')'.
tree_process read_stat(int pid, const std::filesystem::path& stat_file) {
    std::ifstream in(stat_file);
    const std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    tree_process p{pid};
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 4 >= line.size()) return p;
    p.state = line[close + 2];
    const char* ppid = line.data() + close + 4;  // past ") S "
    std::from_chars(ppid, line.data() + line.size(), p.parent);
    return p;
}

}  // namespace

std::vector<tree_process> process_tree(int root, const std::filesystem::path& proc) {
    std::map<int, tree_process> seen;
    std::multimap<int, int> children;  // parent -> child
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
        const std::string name = entry.path().filename().string();
        int pid = 0;
        const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (err != std::errc{} || end != name.data() + name.size()) continue;
        const tree_process p = read_stat(pid, entry.path() / "stat");
        seen[pid] = p;
        if (p.parent > 0) children.emplace(p.parent, pid);
    }
    const auto found = seen.find(root);
    std::vector<tree_process> tree{found != seen.end() ? found->second : tree_process{root}};
    for (std::size_t i = 0; i < tree.size(); ++i) {
        const auto [first, last] = children.equal_range(tree[i].pid);
        for (auto it = first; it != last; ++it) tree.push_back(seen[it->second]);
    }
    return tree;
}

std::vector<int> process_and_descendants(int root, const std::filesystem::path& proc) {
    std::vector<int> pids;
    for (const auto& p : process_tree(root, proc)) pids.push_back(p.pid);
    return pids;
}

}  // namespace grader
