#include "system/process_tree.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <sys/stat.h>

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
    const char* const end = line.data() + line.size();
    const char* ppid = line.data() + close + 4;  // past ") S "
    const auto [after_ppid, err] = std::from_chars(ppid, end, p.parent);
    if (err == std::errc{} && after_ppid + 1 < end) std::from_chars(after_ppid + 1, end, p.group);
    return p;
}

// Every process /proc lists now, by PID.
std::map<int, tree_process> every_process(const std::filesystem::path& proc) {
    std::map<int, tree_process> seen;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
        const std::string name = entry.path().filename().string();
        int pid = 0;
        const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (err != std::errc{} || end != name.data() + name.size()) continue;
        seen[pid] = read_stat(pid, entry.path() / "stat");
    }
    return seen;
}

// `root` first, then its descendants, among `seen`.
std::vector<tree_process> tree_of(int root, const std::map<int, tree_process>& seen) {
    std::multimap<int, int> children;  // parent -> child
    for (const auto& [pid, p] : seen)
        if (p.parent > 0) children.emplace(p.parent, pid);
    const auto found = seen.find(root);
    std::vector<tree_process> tree{found != seen.end() ? found->second : tree_process{root}};
    for (std::size_t i = 0; i < tree.size(); ++i) {
        const auto [first, last] = children.equal_range(tree[i].pid);
        for (auto it = first; it != last; ++it) tree.push_back(seen.at(it->second));
    }
    return tree;
}

}  // namespace

std::vector<tree_process> process_tree(int root, const std::filesystem::path& proc) {
    return tree_of(root, every_process(proc));
}

std::vector<int> processes_running(int root, const std::filesystem::path& program, const std::filesystem::path& proc) {
    struct stat wanted {};
    if (::stat(program.c_str(), &wanted) != 0) return {};
    const std::map<int, tree_process> seen = every_process(proc);
    std::vector<int> candidates;
    for (const auto& p : tree_of(root, seen))
        if (p.pid != root) candidates.push_back(p.pid);
    for (const auto& [pid, p] : seen)
        if (pid != root && p.group == root && std::find(candidates.begin(), candidates.end(), pid) == candidates.end())
            candidates.push_back(pid);
    std::vector<int> running;
    for (const int pid : candidates) {
        struct stat found {};
        const std::string exe = (proc / std::to_string(pid) / "exe").string();
        if (::stat(exe.c_str(), &found) == 0 && found.st_dev == wanted.st_dev && found.st_ino == wanted.st_ino)
            running.push_back(pid);
    }
    return running;
}

std::vector<int> process_and_descendants(int root, const std::filesystem::path& proc) {
    std::vector<int> pids;
    for (const auto& p : process_tree(root, proc)) pids.push_back(p.pid);
    return pids;
}

}  // namespace grader
