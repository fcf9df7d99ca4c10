#include "batch/gradescope_export.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "batch/submission_files.hpp"
#include "batch/zip_reader.hpp"
#include "checkout/context.hpp"
#include "system/process.hpp"

#if COURSE_HAVE_YAML_CPP
#include <yaml-cpp/yaml.h>
#endif

namespace grader {

namespace {

constexpr const char* metadata_name = "submission_metadata.yml";
constexpr const char* how_to_export =
    "Export it again from Gradescope (the assignment's Review Grades page > Export Submissions) and pass the "
    "zip as it came";

// "Ada Lovelace + Charles Babbage"; failing names, the emails, the ids, or
// the folder's name: a submission is never nameless.
std::string student_name(const std::vector<submitter>& who, const std::string& folder) {
    for (auto field : {&submitter::name, &submitter::email, &submitter::sid}) {
        std::vector<std::string> parts;
        for (const auto& s : who)
            if (!(s.*field).empty()) parts.push_back(s.*field);
        if (!parts.empty() && parts.size() == who.size()) return fmt::format("{}", fmt::join(parts, " + "));
    }
    return folder;
}

// The export's files, grouped by submission folder; what lies beside them
// (other than the metadata) is a note.
struct export_tree {
    std::string metadata;                                       // the text of submission_metadata.yml
    std::map<std::string, std::vector<found_file>> folders;     // submission folder -> its files, paths inside it
    std::map<std::string, std::vector<std::string>> problems;   // submission folder -> what listing it found
    std::vector<std::string> loose;                             // files at the export's top, not the metadata
    std::size_t outside = 0;                                    // zip entries outside the export's top folder
};

submission_set assemble(const export_tree& tree, const submission_rules& rules) {
    const auto metadata = parse_gradescope_metadata(tree.metadata);
    submission_set set;
    set.kind = submissions_kind::gradescope_export;
    if (!tree.loose.empty())
        set.notes.push_back(fmt::format("ignored {} file{} at the top of the export (a submission is a folder): {}",
                                        tree.loose.size(), tree.loose.size() == 1 ? "" : "s",
                                        fmt::join(tree.loose, ", ")));
    if (tree.outside > 0)
        set.notes.push_back(fmt::format("ignored {} zip entr{} outside the export's folder (or leading out of it)",
                                        tree.outside, tree.outside == 1 ? "y" : "ies"));

    std::set<std::string> names;
    for (const auto& [folder, files] : tree.folders) names.insert(folder);
    for (const auto& [folder, who] : metadata) names.insert(folder);
    for (const auto& folder : names) {
        submission s;
        s.origin = folder;
        const auto listed = metadata.find(folder);
        const auto found = tree.folders.find(folder);
        if (listed != metadata.end()) s.submitters = listed->second;
        else s.problems.push_back(fmt::format("{} is not in {}: named by its folder", folder, metadata_name));
        s.student = student_name(s.submitters, folder);
        if (found == tree.folders.end()) {
            s.problems.push_back(fmt::format("{} lists {}, but the export has no such folder: {}", metadata_name,
                                             folder, graded_as_skeleton()));
            set.submissions.push_back(std::move(s));
            continue;
        }
        if (const auto p = tree.problems.find(folder); p != tree.problems.end())
            s.problems.insert(s.problems.end(), p->second.begin(), p->second.end());
        std::uintmax_t unpacked = 0;
        for (const auto& f : found->second) unpacked += f.size;
        if (unpacked > rules.limits.max_submission_bytes) {
            s.problems.push_back(fmt::format("{} would unpack to {}, over the {} limit for one submission: none of "
                                             "its files used; {}",
                                             folder, human_size(unpacked), human_size(rules.limits.max_submission_bytes),
                                             graded_as_skeleton()));
        } else {
            choose_exercise_files(found->second, rules, s);
        }
        set.submissions.push_back(std::move(s));
    }
    return set;
}

export_tree tree_from_folder(const std::filesystem::path& root, const submission_rules& rules) {
    namespace fs = std::filesystem;
    export_tree tree;
    const fs::path metadata = root / metadata_name;
    std::error_code ec;
    if (fs::file_size(metadata, ec) > rules.limits.max_metadata_bytes || ec)
        throw user_error(usage_error, fmt::format("{} is {}: not read. {}", metadata.string(),
                                                  ec ? ec.message() : "larger than any real one", how_to_export));
    tree.metadata = file_text(metadata);
    std::vector<fs::directory_entry> entries;
    for (const auto& e : fs::directory_iterator(root)) entries.push_back(e);
    std::sort(entries.begin(), entries.end());
    for (const auto& e : entries) {
        const std::string name = e.path().filename().string();
        if (name == metadata_name || name.front() == '.') continue;
        if (e.is_directory() && !e.is_symlink()) {
            tree.folders[name] = list_folder(e.path(), "", rules, tree.problems[name]);
        } else {
            tree.loose.push_back(name);
        }
    }
    return tree;
}

export_tree tree_from_zip(const std::filesystem::path& zip, const submission_rules& rules) {
    const auto wants = [&](const std::string& path) -> std::optional<std::uintmax_t> {
        const std::string name = file_name_of(path);
        if (name == metadata_name && std::count(path.begin(), path.end(), '/') <= 1)
            return rules.limits.max_metadata_bytes;
        if (std::find(rules.exercise_files.begin(), rules.exercise_files.end(), name) != rules.exercise_files.end())
            return rules.limits.max_file_bytes;
        return std::nullopt;
    };
    std::vector<found_file> entries =
        read_zip(zip, {rules.limits.max_zip_entries, rules.limits.max_zip_bytes}, wants);

    // The export's top folder is where its metadata is: "" or "assignment_123_export/".
    const found_file* metadata = nullptr;
    for (const auto& e : entries)
        if (file_name_of(e.path) == metadata_name && !e.unsafe_path && wants(e.path) &&
            (!metadata || e.path.size() < metadata->path.size()))
            metadata = &e;
    if (!metadata)
        throw user_error(usage_error, fmt::format("{} is not a Gradescope export: it has no {} at its top. {}",
                                                  zip.string(), metadata_name, how_to_export));
    if (!metadata->content)
        throw user_error(usage_error, fmt::format("the {} in {} could not be read ({}). {}", metadata_name,
                                                  zip.string(),
                                                  metadata->damaged ? "damaged" : "larger than any real one",
                                                  how_to_export));
    export_tree tree;
    tree.metadata = *metadata->content;
    const std::string top = metadata->path.substr(0, metadata->path.size() - std::string(metadata_name).size());
    for (auto& e : entries) {
        if (&e == metadata) continue;
        const std::string inside = e.path.compare(0, top.size(), top) == 0 ? e.path.substr(top.size()) : "";
        const auto slash = inside.find('/');
        if (inside.empty() || (e.unsafe_path && slash == std::string::npos)) {
            ++tree.outside;  // outside the export's folder, or leading out of it: no submission's
            continue;
        }
        if (slash == std::string::npos) {
            if (!is_noise(inside)) tree.loose.push_back(inside);
            continue;
        }
        const std::string folder = inside.substr(0, slash);
        if (folder.empty() || folder == "." || folder == "..") {  // "/x", "../x": leading out of the export
            ++tree.outside;
            continue;
        }
        if (folder.front() == '.' || folder == "__MACOSX") continue;
        e.path = inside.substr(slash + 1);
        tree.folders[folder].push_back(std::move(e));
    }
    return tree;
}

}  // namespace

bool can_read_gradescope_metadata(std::string* why) {
#if COURSE_HAVE_YAML_CPP
    (void)why;
    return true;
#else
    if (why)
        *why = "this grader was built without yaml-cpp, which reads Gradescope's submission_metadata.yml. Install "
               "it (Debian/Ubuntu: sudo apt install libyaml-cpp-dev), then configure and build again (cmake --preset "
               "default && cmake --build build)";
    return false;
#endif
}

#if COURSE_HAVE_YAML_CPP

namespace {
std::string without_colon(std::string key) {
    if (!key.empty() && key.front() == ':') key.erase(0, 1);
    return key;
}

// A key with or without the leading colon of a Ruby symbol.
YAML::Node child(const YAML::Node& map, const std::string& key) {
    if (!map.IsMap()) return YAML::Node();
    if (const YAML::Node n = map[":" + key]) return n;
    return map[key];
}

std::string scalar(const YAML::Node& map, const std::string& key) {
    const YAML::Node n = child(map, key);
    return n && n.IsScalar() ? n.Scalar() : "";
}
}  // namespace

std::map<std::string, std::vector<submitter>> parse_gradescope_metadata(const std::string& yaml_text) {
    YAML::Node root;
    try {
        root = YAML::Load(yaml_text);
    } catch (const YAML::Exception& e) {
        throw user_error(usage_error, fmt::format("{} is not valid YAML ({}). {}", metadata_name, e.what(),
                                                  how_to_export));
    }
    if (!root.IsMap())
        throw user_error(usage_error, fmt::format("{} does not map submission folders to submitters. {}",
                                                  metadata_name, how_to_export));
    std::map<std::string, std::vector<submitter>> out;
    for (const auto& item : root) {
        if (!item.first.IsScalar()) continue;
        const std::string folder = without_colon(item.first.Scalar());
        std::vector<submitter> who;
        const YAML::Node submitters = child(item.second, "submitters");
        if (submitters && submitters.IsSequence())
            for (const auto& s : submitters)
                who.push_back({scalar(s, "name"), scalar(s, "email"), scalar(s, "sid")});
        out[folder] = std::move(who);
    }
    return out;
}

#else

std::map<std::string, std::vector<submitter>> parse_gradescope_metadata(const std::string&) {
    std::string why;
    can_read_gradescope_metadata(&why);
    throw user_error(usage_error, fmt::format("cannot read a Gradescope export: {}", why));
}

#endif

std::optional<std::filesystem::path> gradescope_export_root(const std::filesystem::path& folder) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_regular_file(folder / metadata_name, ec)) return folder;
    // One folder down only where the zip was unpacked: a folder whose one
    // subfolder is the export. In a folder of students, a student who hands
    // in a submission_metadata.yml must not turn the class into an export.
    std::vector<fs::path> subfolders;
    for (const auto& e : fs::directory_iterator(folder, ec))
        if (e.is_directory() && !e.is_symlink() && e.path().filename().string().front() != '.')
            subfolders.push_back(e.path());
    if (subfolders.size() == 1 && fs::is_regular_file(subfolders.front() / metadata_name, ec))
        return subfolders.front();
    return std::nullopt;
}

submission_set read_gradescope_export(const std::filesystem::path& input, const submission_rules& rules) {
    std::string why;
    if (!can_read_gradescope_metadata(&why))
        throw user_error(usage_error, fmt::format("cannot read the Gradescope export {}: {}", input.string(), why));
    if (std::filesystem::is_directory(input)) {
        const auto root = gradescope_export_root(input);
        if (!root)
            throw user_error(usage_error, fmt::format("{} is not a Gradescope export: no {} at its top or in exactly "
                                                      "one folder inside it. {}",
                                                      input.string(), metadata_name, how_to_export));
        return assemble(tree_from_folder(*root, rules), rules);
    }
    return assemble(tree_from_zip(input, rules), rules);
}

}  // namespace grader
