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
    std::vector<similarity_token> out;
    out.reserve(raw.size());
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
        out.push_back({h, t.line});
    }
    return out;
}

std::set<std::string> skeleton_names(const std::vector<std::string>& skeleton_texts) {
    std::set<std::string> names;
    for (const auto& text : skeleton_texts)
        for (const raw_token& t : scanner(text).all())
            if (t.type == raw_token::kind::identifier) names.emplace(t.text);
    return names;
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
