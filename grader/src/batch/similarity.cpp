#include "batch/similarity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "system/user_error.hpp"

namespace grader {

namespace {

// A k-gram: its hash, and where its first token is.
struct fingerprint {
    std::uint64_t hash;
    std::size_t file, token;
};

bool by_hash(const fingerprint& x, const fingerprint& y) {
    return std::tie(x.hash, x.file, x.token) < std::tie(y.hash, y.file, y.token);
}

// A document's k-grams, all of them sorted by hash (to say what matched),
// and the distinct hashes winnowing kept (to find whom it may match).
struct fingerprinted {
    const similarity_document* doc;
    std::vector<fingerprint> grams;
    std::vector<std::uint64_t> winnowed;
};

// Spreads a k-gram's sum over all 64 bits (splitmix64's finaliser), so that
// "the smallest hash of a window" is an even-handed choice.
std::uint64_t mixed(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// The k-grams of one file, and winnowing (the paper's "robust" form): in
// every window of w consecutive k-gram hashes the smallest, the rightmost
// of equals, kept once.
void hash_file(const std::vector<similarity_token>& tokens, std::size_t file, const similarity_settings& s,
               fingerprinted& into) {
    if (tokens.size() < s.k) return;
    constexpr std::uint64_t base = 0x100000001b3ull;
    std::uint64_t top = 1;  // base^(k-1)
    for (std::size_t i = 1; i < s.k; ++i) top *= base;
    std::vector<std::uint64_t> grams;
    std::uint64_t h = 0;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (i >= s.k) h -= tokens[i - s.k].hash * top;
        h = h * base + tokens[i].hash;
        if (i + 1 >= s.k) grams.push_back(mixed(h));
    }
    for (std::size_t i = 0; i < grams.size(); ++i) into.grams.push_back({grams[i], file, i});
    const std::size_t w = std::min(s.window, grams.size());
    std::size_t last = grams.size();  // none yet
    for (std::size_t start = 0; start + w <= grams.size(); ++start) {
        std::size_t best = start;
        for (std::size_t j = start; j < start + w; ++j)
            if (grams[j] <= grams[best]) best = j;
        if (best != last) into.winnowed.push_back(grams[best]);
        last = best;
    }
}

fingerprinted fingerprints_of(const similarity_document& doc, const similarity_settings& s) {
    fingerprinted f{&doc, {}, {}};
    for (std::size_t i = 0; i < doc.files.size(); ++i) hash_file(doc.files[i].tokens, i, s, f);
    std::sort(f.grams.begin(), f.grams.end(), by_hash);
    std::sort(f.winnowed.begin(), f.winnowed.end());
    f.winnowed.erase(std::unique(f.winnowed.begin(), f.winnowed.end()), f.winnowed.end());
    return f;
}

// What one side of a pair matched: a flag per own token of each file.
// Matched k-grams are noted by where they start, then one sweep per file
// marks every token some matched k-gram covers: a pair costs the length of
// its two documents, not k times the number of matches.
struct coverage {
    std::vector<std::vector<char>> covered;
    std::size_t count = 0;

    explicit coverage(const similarity_document& doc) {
        for (const auto& file : doc.files) covered.emplace_back(file.tokens.size(), 0);
    }
    void note_start(const fingerprint& gram) { covered[gram.file][gram.token] = 1; }
    void spread(std::size_t k) {
        for (auto& flags : covered) {
            std::size_t reach = 0;  // tokens before this one are covered up to here
            for (std::size_t t = 0; t < flags.size(); ++t) {
                if (flags[t]) reach = std::max(reach, t + k);
                flags[t] = t < reach;
                count += flags[t];
            }
        }
    }
};

// A k-gram of a file, as the comparison file by file knows it: its hash
// and its file's name.
using common_grams = std::unordered_set<std::uint64_t>;
std::uint64_t file_gram(const fingerprinted& d, const fingerprint& g) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : d.doc->files[g.file].name) h = (h ^ c) * 1099511628211ull;
    return mixed(h ^ g.hash);
}

// What two documents matched, on each side: by any k-gram of the other, or
// (`same_file`) only by a k-gram of the other's file of the same name that
// is not one of `common`, the comparison file by file.
std::pair<coverage, coverage> matched_tokens(const fingerprinted& a, const fingerprinted& b, std::size_t k,
                                             const common_grams* same_file = nullptr) {
    coverage ca(*a.doc), cb(*b.doc);
    const auto name = [](const fingerprinted& d, const fingerprint& g) -> const std::string& {
        return d.doc->files[g.file].name;
    };
    auto i = a.grams.begin(), j = b.grams.begin();
    while (i != a.grams.end() && j != b.grams.end()) {
        if (i->hash < j->hash) {
            ++i;
        } else if (j->hash < i->hash) {
            ++j;
        } else {
            const std::uint64_t h = i->hash;
            const auto i0 = i, j0 = j;
            while (i != a.grams.end() && i->hash == h) ++i;
            while (j != b.grams.end() && j->hash == h) ++j;
            if (!same_file) {
                for (auto x = i0; x != i; ++x) ca.note_start(*x);
                for (auto y = j0; y != j; ++y) cb.note_start(*y);
                continue;
            }
            for (auto x = i0; x != i; ++x)
                for (auto y = j0; y != j; ++y)
                    if (name(a, *x) == name(b, *y) && !same_file->count(file_gram(a, *x))) {
                        ca.note_start(*x);
                        cb.note_start(*y);
                    }
        }
    }
    ca.spread(k);
    cb.spread(k);
    return {std::move(ca), std::move(cb)};
}

// Runs of matched tokens as line ranges (of one file, where `only` names
// it); runs that touch merge. A loop's step is compared after its body
// (similarity_tokens.hpp), so a run's lines are its lowest to its highest.
std::vector<line_range> ranges_of(const similarity_document& doc, const coverage& c, const std::string& only = "") {
    std::vector<line_range> out;
    for (std::size_t f = 0; f < doc.files.size(); ++f) {
        if (!only.empty() && doc.files[f].name != only) continue;
        const auto& tokens = doc.files[f].tokens;
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            if (!c.covered[f][t]) continue;
            std::size_t end = t;
            while (end + 1 < tokens.size() && c.covered[f][end + 1]) ++end;
            int first = tokens[t].line, last = first;
            for (std::size_t u = t; u <= end; ++u) {
                first = std::min(first, tokens[u].line);
                last = std::max(last, tokens[u].line);
            }
            if (!out.empty() && out.back().file == doc.files[f].name && first <= out.back().last + 1)
                out.back().last = std::max(out.back().last, last);
            else
                out.push_back({doc.files[f].name, first, last});
            t = end;
        }
    }
    return out;
}

std::vector<std::string> excerpt_of(const similarity_document& doc, const std::vector<line_range>& ranges) {
    constexpr std::size_t max_lines = 12;
    std::vector<std::string> out;
    for (const auto& r : ranges)
        for (const auto& file : doc.files)
            if (file.name == r.file)
                for (int l = r.first; l <= r.last && out.size() < max_lines; ++l)
                    if (l >= 1 && static_cast<std::size_t>(l) <= file.lines.size())
                        out.push_back(fmt::format("{}:{}: {}", file.name, l, file.lines[l - 1]));
    return out;
}

double share(std::size_t part, std::size_t whole) { return whole == 0 ? 0.0 : static_cast<double>(part) / whole; }

std::size_t count_in(const std::vector<char>& flags) {
    return static_cast<std::size_t>(std::count(flags.begin(), flags.end(), 1));
}

// The pair a-b in full, or nothing when it is not a flag: the whole of
// what each wrote, or else the file of theirs that matches the other's
// file of the same name most.
std::optional<similar_pair> compare(const fingerprinted& a, const fingerprinted& b, const similarity_settings& s,
                                    const common_grams& common) {
    const auto [ca, cb] = matched_tokens(a, b, s.k);
    similar_pair p;
    p.a = a.doc->name;
    p.b = b.doc->name;
    p.b_kind = b.doc->kind;
    p.matched_a = ca.count;
    p.matched_b = cb.count;
    p.share_a = share(p.matched_a, a.doc->token_count());
    p.share_b = share(p.matched_b, b.doc->token_count());
    p.similarity = std::max(p.share_a, p.share_b);
    if (p.similarity >= s.threshold && std::min(p.matched_a, p.matched_b) >= s.min_matched_tokens) {
        p.lines_a = ranges_of(*a.doc, ca);
        p.lines_b = ranges_of(*b.doc, cb);
        return p;
    }
    // File by file. What a file matched of the other's same file is at most
    // what it matched of the other at all: only a file that passes with the
    // latter is worth the former.
    const auto flagged = [&](double share_a, double share_b, std::size_t matched_a, std::size_t matched_b) {
        return std::max(share_a, share_b) >= std::max(s.threshold, s.file_threshold) &&
               std::min(matched_a, matched_b) >= s.min_file_matched_tokens;
    };
    std::vector<std::pair<std::size_t, std::size_t>> worth;  // files (a's, b's) of the same name
    for (std::size_t fa = 0; fa < a.doc->files.size(); ++fa)
        for (std::size_t fb = 0; fb < b.doc->files.size(); ++fb) {
            const auto& x = a.doc->files[fa];
            const auto& y = b.doc->files[fb];
            if (x.name != y.name) continue;
            const std::size_t ma = count_in(ca.covered[fa]), mb = count_in(cb.covered[fb]);
            if (flagged(share(ma, x.tokens.size()), share(mb, y.tokens.size()), ma, mb)) worth.emplace_back(fa, fb);
        }
    if (worth.empty()) return std::nullopt;
    const auto [fa_cover, fb_cover] = matched_tokens(a, b, s.k, &common);
    std::optional<similar_pair> best;
    for (const auto& [fa, fb] : worth) {
        const auto& x = a.doc->files[fa];
        const auto& y = b.doc->files[fb];
        similar_pair f = p;
        f.file = x.name;
        f.matched_a = count_in(fa_cover.covered[fa]);
        f.matched_b = count_in(fb_cover.covered[fb]);
        f.share_a = share(f.matched_a, x.tokens.size());
        f.share_b = share(f.matched_b, y.tokens.size());
        f.similarity = std::max(f.share_a, f.share_b);
        if (!flagged(f.share_a, f.share_b, f.matched_a, f.matched_b) || (best && f.similarity <= best->similarity))
            continue;
        f.lines_a = ranges_of(*a.doc, fa_cover, x.name);
        f.lines_b = ranges_of(*b.doc, fb_cover, y.name);
        best = std::move(f);
    }
    return best;
}

}  // namespace

std::optional<double> parse_similarity_threshold(const std::string& text) {
    if (text == "off" || text == "0") return std::nullopt;
    std::size_t used = 0;
    double value = -1;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string rest = text.substr(used);
    if (used > 0 && rest == "%") value /= 100;
    if (used == 0 || (rest != "" && rest != "%") || !(value > 0 && value <= 1))
        throw user_error(usage_error, fmt::format("--similarity {}: write a share of a student's own code, such as "
                                                  "0.6 or 60%, or off",
                                                  text));
    return value;
}

std::size_t similarity_document::token_count() const {
    std::size_t n = 0;
    for (const auto& f : files) n += f.tokens.size();
    return n;
}

similarity_document make_document(std::string name, source_kind kind, const std::map<std::string, std::string>& files,
                                  const lesson_skeleton& skeleton) {
    similarity_document doc{std::move(name), kind, {}};
    for (const auto& source : skeleton.sources) {
        const auto it = files.find(source);
        if (it == files.end()) continue;  // graded as the skeleton: nothing of the student's
        const auto base = skeleton.files.find(source);
        const std::vector<bool> own = own_lines(it->second, base == skeleton.files.end() ? "" : base->second);
        similarity_document::file f{source, {}, lines_of(it->second)};
        for (const auto& t : tokenize_source(it->second, skeleton.names))
            if (static_cast<std::size_t>(t.line) < own.size() && own[t.line]) f.tokens.push_back(t);
        doc.files.push_back(std::move(f));
    }
    return doc;
}

std::vector<similar_pair> find_similar_pairs(const std::vector<similarity_document>& students,
                                             const std::vector<similarity_document>& course_versions,
                                             const similarity_settings& settings) {
    // Students first, then the course's versions: an index j >= students.size() is a version.
    std::vector<fingerprinted> docs;
    for (const auto& d : students) docs.push_back(fingerprints_of(d, settings));
    for (const auto& d : course_versions) docs.push_back(fingerprints_of(d, settings));
    // What most of the class wrote in a file, the lesson dictated (MOSS's
    // -m): it does not count file by file, where a small file's few lines
    // would otherwise make every pair of a class alike.
    common_grams common;
    if (students.size() >= settings.common_min_students) {
        std::unordered_map<std::uint64_t, std::size_t> writers;
        for (std::size_t i = 0; i < students.size(); ++i) {
            std::vector<std::uint64_t> grams;
            for (const auto& g : docs[i].grams) grams.push_back(file_gram(docs[i], g));
            std::sort(grams.begin(), grams.end());
            grams.erase(std::unique(grams.begin(), grams.end()), grams.end());
            for (auto g : grams) ++writers[g];
        }
        for (const auto& [g, n] : writers)
            if (static_cast<double>(n) >= settings.common_share * static_cast<double>(students.size())) common.insert(g);
    }
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> index;  // hash -> documents, ascending
    for (std::size_t j = 0; j < docs.size(); ++j)
        for (auto h : docs[j].winnowed) index[h].push_back(j);

    std::vector<similar_pair> pairs;
    std::vector<std::size_t> shared(docs.size(), 0);
    std::vector<std::size_t> touched;
    for (std::size_t i = 0; i < students.size(); ++i) {
        for (auto h : docs[i].winnowed)
            for (auto j : index[h])
                if (j > i && shared[j]++ == 0) touched.push_back(j);
        std::sort(touched.begin(), touched.end());
        std::optional<similar_pair> best_version;
        for (auto j : touched) {
            shared[j] = 0;
            auto pair = compare(docs[i], docs[j], settings, common);
            if (!pair) continue;
            if (j < students.size()) {
                pairs.push_back(std::move(*pair));
            } else if (!best_version || pair->similarity > best_version->similarity + 1e-9 ||
                       (std::abs(pair->similarity - best_version->similarity) <= 1e-9 &&
                        pair->b_kind < best_version->b_kind)) {
                best_version = std::move(pair);  // on a tie: the solution before a textbook form before a mistake
            }
        }
        touched.clear();
        if (best_version) pairs.push_back(std::move(*best_version));
    }
    std::sort(pairs.begin(), pairs.end(), [](const similar_pair& x, const similar_pair& y) {
        if (x.similarity != y.similarity) return x.similarity > y.similarity;
        return std::tie(x.a, x.b) < std::tie(y.a, y.b);
    });
    // Quotes for the most similar pairs only: a class of copies has tens of
    // thousands of pairs, and nobody reads past the first few hundred.
    std::map<std::string, const similarity_document*> by_name;
    for (const auto& d : students) by_name[d.name] = &d;
    for (std::size_t i = 0; i < pairs.size() && i < max_quoted_pairs; ++i)
        pairs[i].excerpt_a = excerpt_of(*by_name.at(pairs[i].a), pairs[i].lines_a);
    return pairs;
}

}  // namespace grader
