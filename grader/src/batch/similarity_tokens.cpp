#include "batch/similarity_tokens.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <map>
#include <unordered_set>

namespace grader {

namespace {

// FNV-1a, 64 bits: stable across runs and machines, so a batch's figures
// are the same every time it runs.
std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    return h;
}

// Names no student chooses: C++ and CUDA keywords, CUDA's built-in
// variables, types and common functions. Prefixes cover the families
// (cudaMalloc, cublasSgemm, __shfl_down_sync, atomicAdd).
const std::unordered_set<std::string_view>& fixed_names() {
    static const std::unordered_set<std::string_view> names = {
        // C++
        "alignas", "alignof", "auto", "bool", "break", "case", "catch", "char", "class", "const", "consteval",
        "constexpr", "constinit", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
        "dynamic_cast", "else", "enum", "explicit", "extern", "false", "float", "for", "friend", "goto", "if",
        "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private",
        "protected", "public", "register", "reinterpret_cast", "return", "short", "signed", "sizeof", "static",
        "static_assert", "static_cast", "struct", "switch", "template", "this", "throw", "true", "try", "typedef",
        "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "override",
        "final", "include", "define", "pragma", "ifdef", "ifndef", "endif", "unroll", "std", "size_t",
        "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
        "uintptr_t", "min", "max", "abs", "fabs", "sqrt", "exp", "log", "printf", "malloc", "free", "memcpy",
        "memset", "assert",
        // CUDA
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "half", "uint", "fminf", "fmaxf",
        "fabsf", "sqrtf", "rsqrtf", "expf", "logf", "fmaf", "powf", "sinf", "cosf", "tanhf", "min", "max",
        "make_float2", "make_float4", "make_int2", "make_int4", "float2", "float3", "float4", "double2",
        "int2", "int3", "int4", "uint2", "uint4", "char4", "uchar4", "short2", "longlong2"};
    return names;
}

bool is_fixed_name(std::string_view name) {
    static constexpr std::array<std::string_view, 7> prefixes = {"__", "cuda", "cublas", "cub", "nvrtc", "atomic",
                                                                 "thrust"};
    if (fixed_names().count(name)) return true;
    for (auto p : prefixes)
        if (name.substr(0, p.size()) == p) return true;
    // The driver API: cuModuleLoad, cuLaunchKernel, CUresult.
    return name.size() > 2 && (name.substr(0, 2) == "cu" || name.substr(0, 2) == "CU") &&
           std::isupper(static_cast<unsigned char>(name[2]));
}

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Operators, longest first where one begins another.
constexpr std::array<std::string_view, 28> long_operators = {
    "<=>", "<<=", ">>=", "->*", "...", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
    "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "##", "#@"};

// One raw token of the source, before names are normalised.
struct raw_token {
    enum class kind { identifier, number, string, character, punctuation } type;
    std::string_view text;
    int line;
};

// Splits source into raw tokens, skipping comments and whitespace. Never
// fails: whatever it does not recognise is a one-character token.
class scanner {
public:
    explicit scanner(std::string_view text) : s_(text) {}

    std::vector<raw_token> all() {
        std::vector<raw_token> out;
        while (skip_space_and_comments(), i_ < s_.size()) out.push_back(next());
        return out;
    }

private:
    void advance(std::size_t n) {
        for (std::size_t end = std::min(s_.size(), i_ + n); i_ < end; ++i_)
            if (s_[i_] == '\n') ++line_;
    }

    void skip_space_and_comments() {
        while (i_ < s_.size()) {
            if (std::isspace(static_cast<unsigned char>(s_[i_])) || (s_[i_] == '\\' && at("\\\n"))) {
                advance(1);
            } else if (at("//")) {
                advance(s_.find('\n', i_) == std::string_view::npos ? s_.size() : s_.find('\n', i_) - i_);
            } else if (at("/*")) {
                const auto end = s_.find("*/", i_ + 2);
                advance(end == std::string_view::npos ? s_.size() : end + 2 - i_);
            } else {
                return;
            }
        }
    }

    bool at(std::string_view what) const { return s_.substr(i_, what.size()) == what; }

    raw_token take(raw_token::kind type, std::size_t length) {
        const raw_token t{type, s_.substr(i_, length), line_};
        advance(length);
        return t;
    }

    // A quoted literal from i_: to its closing quote (escapes skipped) or the line's end.
    std::size_t quoted_length(char quote) const {
        std::size_t j = i_ + 1;
        while (j < s_.size() && s_[j] != quote && s_[j] != '\n') j += s_[j] == '\\' ? 2 : 1;
        return std::min(j + 1, s_.size()) - i_;
    }

    raw_token next() {
        const char c = s_[i_];
        if (at("R\"")) {  // a raw string: R"delim( ... )delim"
            const auto open = s_.find('(', i_);
            if (open != std::string_view::npos) {
                const std::string close = ")" + std::string(s_.substr(i_ + 2, open - i_ - 2)) + "\"";
                const auto end = s_.find(close, open);
                return take(raw_token::kind::string, (end == std::string_view::npos ? s_.size() : end + close.size()) - i_);
            }
        }
        if (identifier_start(c)) {
            std::size_t j = i_;
            while (j < s_.size() && identifier_char(s_[j])) ++j;
            // A prefixed literal (u8"...", L'x') is the literal.
            if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'') && j - i_ <= 2) advance(j - i_);
            else return take(raw_token::kind::identifier, j - i_);
        }
        if (s_[i_] == '"') return take(raw_token::kind::string, quoted_length('"'));
        if (s_[i_] == '\'') return take(raw_token::kind::character, quoted_length('\''));
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))) {
            std::size_t j = i_ + 1;
            while (j < s_.size() && (identifier_char(s_[j]) || s_[j] == '.' || s_[j] == '\'' ||
                                     ((s_[j] == '+' || s_[j] == '-') && std::strchr("eEpP", s_[j - 1]))))
                ++j;
            return take(raw_token::kind::number, j - i_);
        }
        for (auto op : long_operators)
            if (at(op)) return take(raw_token::kind::punctuation, op.size());
        return take(raw_token::kind::punctuation, 1);
    }

    std::string_view s_;
    std::size_t i_ = 0;
    int line_ = 1;
};

// Keywords that change nothing a copy is told by, and that a student adds or
// takes away at no cost: qualifiers and hints.
bool is_decoration(std::string_view name) {
    static const std::unordered_set<std::string_view> names = {
        "const", "constexpr", "inline", "register", "volatile", "static", "__restrict__", "__restrict", "restrict",
        "__forceinline__", "__inline__", "__noinline__"};
    return names.count(name) > 0;
}

// Raw tokens (with their hashes, names already normalised) made into the
// stream that is compared: forms that say the same thing become one.
//   - Empty statements and punctuation that only delimits (`;`, `{`, `}`)
//     are dropped, and so are decorations (is_decoration), `#pragma unroll`,
//     `#include` lines,
//     parentheses around one token after an operator and a second pair
//     around the same thing.
//   - Loops become one form: `for (init; cond; step) body`, `init; while
//     (cond) { body step; }` and `do body while (cond);` are all `init
//     <loop> ( cond ) body step`. A postfix `++`/`--` on a name as a
//     statement or a loop's step is the prefix one.
// It never fails: whatever it cannot read as a loop it passes through.
class normaliser {
public:
    normaliser(const std::vector<raw_token>& raw, const std::vector<std::uint64_t>& hashes)
        : raw_(raw), hash_(hashes), match_(raw.size(), none), dropped_(raw.size(), 0) {
        pair_brackets();
        mark_redundant_parentheses();
    }

    std::vector<similarity_token> run() {
        emit_range(0, raw_.size());
        return std::move(out_);
    }

private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    bool is(std::size_t i, std::size_t end, std::string_view text) const {
        return i < end && raw_[i].type != raw_token::kind::string && raw_[i].type != raw_token::kind::character &&
               raw_[i].text == text;
    }
    // The bracket that closes the one at `i`, when it is before `end`.
    std::size_t closing(std::size_t i, std::size_t end) const {
        return i < end && match_[i] != none && match_[i] < end ? match_[i] : none;
    }

    void pair_brackets() {
        std::vector<std::size_t> open;
        for (std::size_t i = 0; i < raw_.size(); ++i) {
            if (raw_[i].type != raw_token::kind::punctuation) continue;
            const std::string_view t = raw_[i].text;
            if (t == "(" || t == "[" || t == "{") {
                open.push_back(i);
                continue;
            }
            const std::string_view opener = t == ")" ? "(" : t == "]" ? "[" : t == "}" ? "{" : "";
            if (opener.empty()) continue;
            // A closer pairs with the nearest opener of its kind; openers left
            // open between them were never closed.
            for (std::size_t k = open.size(); k-- > 0;) {
                if (raw_[open[k]].text != opener) continue;
                match_[open[k]] = i;
                match_[i] = open[k];
                open.resize(k);
                break;
            }
        }
    }

    void mark_redundant_parentheses() {
        for (std::size_t i = 0; i < raw_.size(); ++i) {
            if (raw_[i].text != "(" || raw_[i].type != raw_token::kind::punctuation || match_[i] == none) continue;
            const std::size_t j = match_[i];
            if (i + 1 < j && is(i + 1, j, "(") && match_[i + 1] == j - 1) dropped_[i + 1] = dropped_[j - 1] = 1;
            const bool after_operator = i > 0 && raw_[i - 1].type == raw_token::kind::punctuation &&
                                        raw_[i - 1].text != ")" && raw_[i - 1].text != "]" && raw_[i - 1].text != ">";
            if (j == i + 2 && after_operator) dropped_[i] = dropped_[j] = 1;
        }
    }

    void push(std::uint64_t hash, int line) { out_.push_back({hash, line}); }

    void push_raw(std::size_t i) {
        const raw_token& t = raw_[i];
        if (dropped_[i]) return;
        if (t.type == raw_token::kind::punctuation && (t.text == ";" || t.text == "{" || t.text == "}")) return;
        if (t.type == raw_token::kind::identifier && is_decoration(t.text)) return;
        push(hash_[i], t.line);
    }

    // The end of the statement that starts at `i` (one past it), not past `end`.
    std::size_t statement_end(std::size_t i, std::size_t end) const {
        if (i >= end) return end;
        const std::string_view t = raw_[i].text;
        if (raw_[i].type == raw_token::kind::punctuation) {
            if (t == "{") return closing(i, end) == none ? end : closing(i, end) + 1;
            if (t == ";") return i + 1;
            if (t == "#") {  // a directive is its line; the statement follows it
                std::size_t j = i;
                while (j < end && raw_[j].line == raw_[i].line) ++j;
                return statement_end(j, end);
            }
        }
        if (raw_[i].type == raw_token::kind::identifier) {
            if ((t == "for" || t == "while" || t == "switch") && closing(i + 1, end) != none && is(i + 1, end, "("))
                return statement_end(closing(i + 1, end) + 1, end);
            if (t == "if") {
                std::size_t j = i + 1;
                if (is(j, end, "constexpr")) ++j;
                if (!is(j, end, "(") || closing(j, end) == none) return plain_statement_end(i, end);
                j = statement_end(closing(j, end) + 1, end);
                return is(j, end, "else") ? statement_end(j + 1, end) : j;
            }
            if (t == "do") {
                std::size_t j = statement_end(i + 1, end);
                if (!is(j, end, "while") || !is(j + 1, end, "(") || closing(j + 1, end) == none) return j;
                j = closing(j + 1, end) + 1;
                return is(j, end, ";") ? j + 1 : j;
            }
        }
        return plain_statement_end(i, end);
    }

    // An expression or declaration statement: to its `;`, brackets skipped
    // whole; or to a closing bracket it did not open.
    std::size_t plain_statement_end(std::size_t i, std::size_t end) const {
        for (std::size_t j = i; j < end; ++j) {
            if (raw_[j].type != raw_token::kind::punctuation) continue;
            const std::string_view t = raw_[j].text;
            if (t == ";") return j + 1;
            if (t == ")" || t == "]" || t == "}") return j;
            if ((t == "(" || t == "[" || t == "{") && closing(j, end) != none) j = closing(j, end);
        }
        return end;
    }

    void emit_group(std::size_t open, std::size_t close) {
        push(hash_[open], raw_[open].line);
        emit_range(open + 1, close);
        push(hash_[close], raw_[close].line);
    }

    void emit_range(std::size_t begin, std::size_t end) {
        static const std::uint64_t loop = fnv1a("<loop>");
        for (std::size_t i = begin; i < end;) {
            const raw_token& t = raw_[i];
            if (t.type == raw_token::kind::identifier && (t.text == "for" || t.text == "while") && is(i + 1, end, "(") &&
                closing(i + 1, end) != none) {
                const std::size_t open = i + 1, close = closing(open, end);
                const std::size_t body_end = statement_end(close + 1, end);
                std::vector<std::size_t> semicolons;  // the header's own
                for (std::size_t j = open + 1; j < close; ++j) {
                    if (is(j, close, ";")) semicolons.push_back(j);
                    else if ((is(j, close, "(") || is(j, close, "[") || is(j, close, "{")) && closing(j, close) != none)
                        j = closing(j, close);
                }
                if (t.text == "for" && semicolons.size() == 2) {
                    emit_range(open + 1, semicolons[0]);
                    push(loop, t.line);
                    push(hash_[open], raw_[open].line);
                    emit_range(semicolons[0] + 1, semicolons[1]);
                    push(hash_[close], raw_[close].line);
                    emit_range(close + 1, body_end);
                    emit_range(semicolons[1] + 1, close);
                } else {
                    push(loop, t.line);
                    emit_group(open, close);
                    emit_range(close + 1, body_end);
                }
                i = body_end;
                continue;
            }
            if (t.type == raw_token::kind::identifier && t.text == "do") {
                const std::size_t body_end = statement_end(i + 1, end);
                if (is(body_end, end, "while") && is(body_end + 1, end, "(") && closing(body_end + 1, end) != none) {
                    const std::size_t open = body_end + 1, close = closing(open, end);
                    push(loop, t.line);
                    emit_group(open, close);
                    emit_range(i + 1, body_end);
                    i = is(close + 1, end, ";") ? close + 2 : close + 1;
                    continue;
                }
            }
            if (is(i, end, "#") && (is(i + 1, end, "include") || (is(i + 1, end, "pragma") && is(i + 2, end, "unroll")))) {
                const int line = t.line;
                while (i < end && raw_[i].line == line) ++i;
                continue;
            }
            const bool statement_start = i == begin || is(i - 1, end, ";") || is(i - 1, end, "{") ||
                                         is(i - 1, end, "}") || is(i - 1, end, ")") || is(i - 1, end, ",");
            if (t.type == raw_token::kind::identifier && statement_start && (is(i + 1, end, "++") || is(i + 1, end, "--")) &&
                (i + 2 == end || is(i + 2, end, ";") || is(i + 2, end, ")") || is(i + 2, end, ","))) {
                push(hash_[i + 1], raw_[i + 1].line);
                push(hash_[i], t.line);
                i += 2;
                continue;
            }
            push_raw(i);
            ++i;
        }
    }

    const std::vector<raw_token>& raw_;
    const std::vector<std::uint64_t>& hash_;
    std::vector<std::size_t> match_;
    std::vector<char> dropped_;
    std::vector<similarity_token> out_;
};

// A line as the line diff compares it: without any whitespace.
std::string squeezed(std::string_view line) {
    std::string out;
    for (char c : line)
        if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return out;
}

// Lines ids: equal lines (whitespace ignored) get equal ids.
std::vector<int> line_ids(const std::vector<std::string>& lines, std::map<std::string, int>& ids) {
    std::vector<int> out;
    for (const auto& l : lines) out.push_back(ids.emplace(squeezed(l), static_cast<int>(ids.size())).first->second);
    return out;
}

// The line diff's budget: a table of this many cells (4 bytes each). A
// skeleton of 200 lines diffs a submission of 80,000 lines within it.
constexpr std::size_t max_diff_cells = 16'000'000;

}  // namespace

std::vector<similarity_token> tokenize_source(std::string_view text, const std::set<std::string>& known_names) {
    static const std::uint64_t id = fnv1a("<id>"), number = fnv1a("<number>"), string = fnv1a("<string>"),
                               character = fnv1a("<char>");
    const std::vector<raw_token> raw = scanner(text).all();
    std::vector<std::uint64_t> hashes(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const raw_token& t = raw[i];
        std::uint64_t h = fnv1a(t.text);
        switch (t.type) {
            case raw_token::kind::number: h = number; break;
            case raw_token::kind::string: h = string; break;
            case raw_token::kind::character: h = character; break;
            case raw_token::kind::punctuation: break;
            case raw_token::kind::identifier: {
                const bool member = i > 0 && (raw[i - 1].text == "." || raw[i - 1].text == "->" || raw[i - 1].text == "::");
                const std::string name(t.text);
                if (!member && !is_fixed_name(name) && !known_names.count(name)) h = id;
                break;
            }
        }
        hashes[i] = h;
    }
    return normaliser(raw, hashes).run();
}

std::set<std::string> skeleton_names(const std::vector<std::string>& skeleton_texts) {
    std::set<std::string> names;
    for (const auto& text : skeleton_texts)
        for (const raw_token& t : scanner(text).all())
            if (t.type == raw_token::kind::identifier) names.emplace(t.text);
    return names;
}

std::vector<std::pair<int, int>> definition_lines(std::string_view text) {
    const std::vector<raw_token> raw = scanner(text).all();
    const auto is = [&](std::size_t i, std::string_view t) {
        return raw[i].type == raw_token::kind::punctuation || raw[i].type == raw_token::kind::identifier
                   ? raw[i].text == t
                   : false;
    };
    std::vector<std::pair<int, int>> out;
    std::size_t declaration = 0;  // where the declaration being read began
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (is(i, "#") && (i == 0 || raw[i - 1].line < raw[i].line)) {  // a directive: its line
            while (i + 1 < raw.size() && raw[i + 1].line == raw[i].line) ++i;
            declaration = i + 1;
        } else if (is(i, ";")) {
            declaration = i + 1;
        } else if (is(i, "}")) {  // a namespace's or class's end
            declaration = i + 1;
        } else if (is(i, "{")) {
            bool scope = false;
            for (std::size_t j = declaration; j < i; ++j)
                scope = scope || is(j, "namespace") || is(j, "extern");
            if (scope) {
                declaration = i + 1;
                continue;
            }
            std::size_t end = i;
            for (int depth = 0; end < raw.size(); ++end) {
                if (is(end, "{")) ++depth;
                if (is(end, "}") && --depth == 0) break;
            }
            const std::size_t last = std::min(end, raw.size() - 1);
            out.emplace_back(raw[std::min(declaration, i)].line, raw[last].line);
            i = last;
            declaration = last + 1;
        }
    }
    return out;
}

std::vector<std::string> lines_of(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.emplace_back(line);
        start = end + 1;
    }
    return lines;
}

std::vector<bool> own_lines(std::string_view text, std::string_view skeleton) {
    std::map<std::string, int> ids;
    const std::vector<std::string> text_lines = lines_of(text);
    const std::vector<int> a = line_ids(text_lines, ids), b = line_ids(lines_of(skeleton), ids);
    const int blank = ids.emplace("", static_cast<int>(ids.size())).first->second;

    std::vector<bool> own(a.size() + 1, true);
    own[0] = false;
    // What both begin and end with needs no table.
    std::size_t head = 0, tail = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head]) own[1 + head++] = false;
    while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
        own[a.size() - tail++] = false;
    const std::size_t n = a.size() - head - tail, m = b.size() - head - tail;

    if ((n + 1) * (m + 1) <= max_diff_cells) {
        // lcs[i][j]: the longest common subsequence of a's middle from i and b's from j.
        std::vector<int> lcs((n + 1) * (m + 1), 0);
        const auto at = [&](std::size_t i, std::size_t j) -> int& { return lcs[i * (m + 1) + j]; };
        for (std::size_t i = n; i-- > 0;)
            for (std::size_t j = m; j-- > 0;)
                at(i, j) = a[head + i] == b[head + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
        for (std::size_t i = 0, j = 0; i < n && j < m;) {
            if (a[head + i] == b[head + j]) {
                own[1 + head + i] = false;
                ++i, ++j;
            } else if (at(i + 1, j) >= at(i, j + 1)) {
                ++i;
            } else {
                ++j;
            }
        }
    } else {
        std::map<int, int> unmatched;
        for (std::size_t j = 0; j < m; ++j) ++unmatched[b[head + j]];
        for (std::size_t i = 0; i < n; ++i)
            if (auto it = unmatched.find(a[head + i]); it != unmatched.end() && it->second > 0) {
                --it->second;
                own[1 + head + i] = false;
            }
    }
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] == blank) own[1 + i] = false;
    return own;
}

}  // namespace grader
