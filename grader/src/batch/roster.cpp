#include "batch/roster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "system/user_error.hpp"

namespace grader {

std::vector<std::vector<std::string>> parse_csv(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // Excel's byte-order mark
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false;       // inside a quoted field
    bool was_quoted = false;   // the field began with a quote (only a separator may follow its end)
    bool any = false;          // the record has something in it
    int line = 1, quote_line = 0;
    const auto end_record = [&] {
        record.push_back(std::move(field));
        field.clear();
        if (any || record.size() > 1 || !record.front().empty()) records.push_back(std::move(record));
        record.clear();
        any = was_quoted = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                if (c == '\n') ++line;
                field += c;
            }
            continue;
        }
        if (c == '"' && field.empty() && !was_quoted) {
            quoted = was_quoted = any = true;
            quote_line = line;
        } else if (c == ',') {
            record.push_back(std::move(field));
            field.clear();
            was_quoted = false;
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            end_record();
            ++line;
        } else if (was_quoted) {
            throw std::invalid_argument(fmt::format("line {}: text after a quoted field's closing quote", line));
        } else {
            field += c;
            any = true;
        }
    }
    if (quoted) throw std::invalid_argument(fmt::format("line {}: a quote is opened and never closed", quote_line));
    if (any || !field.empty()) end_record();
    return records;
}

const roster_entry* roster::find(const std::string& folder) const {
    const auto it = by_folder.find(folder);
    return it == by_folder.end() ? nullptr : &entries[it->second];
}

namespace {

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string lowered(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

roster parse_roster(std::string_view text, const std::string& source) {
    const auto refuse = [&](const std::string& why) {
        return user_error(usage_error,
                          fmt::format("--roster {}: {}. A roster is CSV with a header row naming the columns folder "
                                      "(the gradebook's student), id (the LMS's identifier), and optionally name "
                                      "and section: folder,id,name,section",
                                      source, why));
    };
    std::vector<std::vector<std::string>> records;
    try {
        records = parse_csv(text);
    } catch (const std::invalid_argument& e) {
        throw refuse(e.what());
    }
    if (records.empty()) throw refuse("it is empty");
    std::map<std::string, std::size_t> column;
    for (std::size_t i = 0; i < records.front().size(); ++i) column.emplace(lowered(trimmed(records.front()[i])), i);
    for (const char* required : {"folder", "id"})
        if (!column.count(required)) throw refuse(fmt::format("its header row has no column '{}'", required));
    const auto field = [&](const std::vector<std::string>& r, const char* name) -> std::string {
        const auto it = column.find(name);
        return it == column.end() || it->second >= r.size() ? "" : trimmed(r[it->second]);
    };

    roster out;
    out.source = source;
    std::map<std::string, std::string> folder_of_id;
    for (std::size_t row = 1; row < records.size(); ++row) {
        roster_entry e{field(records[row], "folder"), field(records[row], "id"), field(records[row], "name"),
                       field(records[row], "section")};
        const std::string where = fmt::format("row {}", row + 1);
        if (e.folder.empty()) throw refuse(fmt::format("{} has no folder", where));
        if (e.id.empty()) throw refuse(fmt::format("{} ({}) has no id", where, e.folder));
        if (out.by_folder.count(e.folder)) throw refuse(fmt::format("{}: folder '{}' is named twice", where, e.folder));
        if (const auto it = folder_of_id.find(e.id); it != folder_of_id.end())
            throw refuse(fmt::format("{}: id '{}' is given to both '{}' and '{}'", where, e.id, it->second, e.folder));
        folder_of_id.emplace(e.id, e.folder);
        out.by_folder.emplace(e.folder, out.entries.size());
        out.entries.push_back(std::move(e));
    }
    return out;
}

roster read_roster(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw user_error(usage_error, fmt::format("--roster {}: cannot read it", file.string()));
    std::ostringstream text;
    text << in.rdbuf();
    return parse_roster(text.str(), file.string());
}

}  // namespace grader
