#pragma once
// What a student types while `grader watch` runs, turned into commands:
// single keys on a terminal, whole lines from a pipe or a file.
#include <optional>
#include <string>
#include <vector>

namespace grader {

enum class watch_command {
    hint,     // h: show the next hint
    next,     // n: move on to the next lesson
    regrade,  // r or Enter: rebuild and grade now
    quit,     // q
};

// One key: h, n, r, q (either case), Enter; nullopt for any other key.
std::optional<watch_command> parse_key(char key);

// One line: "h", "hint", "n", "next", "r", "regrade", "q", "quit", or an
// empty line (regrade); nullopt for anything else.
std::optional<watch_command> parse_line(const std::string& line);

// Collects what arrives on the input, in pieces of any size, into commands.
class watch_input {
public:
    explicit watch_input(bool single_keys) : single_keys_(single_keys) {}

    // Adds newly arrived bytes; returns the commands they complete, in
    // order, and how many keys or lines were not understood.
    std::vector<watch_command> feed(const std::string& bytes, int& not_understood);

private:
    bool single_keys_;
    std::string partial_line_;
};

}  // namespace grader
