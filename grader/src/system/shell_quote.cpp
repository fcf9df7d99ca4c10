#include "system/shell_quote.hpp"

#include <algorithm>
#include <cctype>

namespace grader {

namespace {
bool is_plain_shell_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}
}  // namespace

std::string shell_quote(std::string_view text) {
    if (!text.empty() && std::all_of(text.begin(), text.end(), is_plain_shell_char)) return std::string(text);
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'')
            quoted += "'\\''";  // end the quotes, an escaped ', open them again
        else
            quoted += c;
    }
    return quoted + "'";
}

}  // namespace grader
