#include "cli/watch_keys.hpp"

#include <cctype>

namespace grader {

std::optional<watch_command> parse_key(char key) {
    switch (std::tolower(static_cast<unsigned char>(key))) {
        case 'h': return watch_command::hint;
        case 'n': return watch_command::next;
        case 'r':
        case '\n':
        case '\r': return watch_command::regrade;
        case 'q': return watch_command::quit;
        default: return std::nullopt;
    }
}

std::optional<watch_command> parse_line(const std::string& raw) {
    std::string line;
    for (unsigned char c : raw)
        if (!std::isspace(c)) line += static_cast<char>(std::tolower(c));
    if (line.empty() || line == "r" || line == "regrade") return watch_command::regrade;
    if (line == "h" || line == "hint") return watch_command::hint;
    if (line == "n" || line == "next") return watch_command::next;
    if (line == "q" || line == "quit" || line == "exit") return watch_command::quit;
    return std::nullopt;
}

std::vector<watch_command> watch_input::feed(const std::string& bytes, int& not_understood) {
    std::vector<watch_command> commands;
    not_understood = 0;
    for (char c : bytes) {
        if (single_keys_) {
            if (const auto command = parse_key(c)) commands.push_back(*command);
            else ++not_understood;
            continue;
        }
        if (c != '\n') {
            partial_line_ += c;
            continue;
        }
        if (const auto command = parse_line(partial_line_)) commands.push_back(*command);
        else ++not_understood;
        partial_line_.clear();
    }
    return commands;
}

}  // namespace grader
