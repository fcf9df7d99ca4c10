// Reads the implementation library's symbol table with `nm` (binutils, there
// wherever the compiler is) and applies the rule in library_symbols.hpp.
#include "library_symbols.hpp"

#include <fmt/format.h>

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "course/testing/harness.hpp"

namespace lesson07::testing {

namespace {

struct symbol {
    std::string name;
    char type;  // nm's letter: U undefined, T code, D/B/R data, W/V weak, lower case local
};

// Object file name -> its symbols, for every member of the library.
struct symbol_table {
    std::map<std::string, std::vector<symbol>> members;
    std::string error;  // why the table could not be read, if it could not
};

struct pipe_closer {
    void operator()(FILE* f) const noexcept { pclose(f); }
};

// What `nm -A -P` printed for `library`: the grader's copy where it wrote
// one (a graded run's program may start no process), else nm run here.
std::string nm_output(const std::string& library, std::string& error) {
    if (const char* written = std::getenv(course::testing::implementation_symbols_variable);
        written && *written) {
        std::ifstream file(written, std::ios::binary);
        if (file) return std::string(std::istreambuf_iterator<char>(file), {});
    }
    const std::string command = "nm -A -P '" + library + "' 2>&1";
    std::unique_ptr<FILE, pipe_closer> pipe(popen(command.c_str(), "r"));
    if (!pipe) {
        error = "could not run nm";
        return {};
    }
    std::string output;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe.get()))
        output.append(buffer, n);
    const int status = pclose(pipe.release());
    if (status != 0)
        error = fmt::format("`{}` failed (status {}): {}", command, status, output.substr(0, 300));
    return output;
}

// `nm -A -P` prints one line per symbol: "lib.a[member.o]: name TYPE value size".
symbol_table read_symbols(const std::string& library) {
    symbol_table table;
    const std::string output = nm_output(library, table.error);
    if (!table.error.empty()) return table;
    std::size_t start = 0;
    while (start < output.size()) {
        std::size_t end = output.find('\n', start);
        if (end == std::string::npos) end = output.size();
        const std::string line = output.substr(start, end - start);
        start = end + 1;
        const auto open = line.find('[');
        const auto close = line.find("]: ");
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        const std::string member = line.substr(open + 1, close - open - 1);
        const std::string rest = line.substr(close + 3);
        const auto space = rest.find(' ');
        if (space == std::string::npos || space + 1 >= rest.size()) continue;
        table.members[member].push_back({rest.substr(0, space), rest[space + 1]});
    }
    if (table.members.empty()) table.error = "nm listed no symbols in " + library;
    return table;
}

// The grader names the student's library (COURSE_IMPLEMENTATION_LIBRARY) so
// that the judge, built against the solution, checks the student's symbols,
// not its own; run by hand, a program checks the library it links.
std::string library_path() {
    const char* named = std::getenv(course::testing::implementation_library_variable);
    return named && *named ? named : implementation_library;
}

const symbol_table& library_symbols() {
    static const symbol_table table = read_symbols(library_path());
    return table;
}

// The library member compiled from `source`: "matmul_naive.cu.o" (CMake's
// name) or "matmul_naive.o".
const std::vector<symbol>* symbols_of(const std::string& source) {
    const auto& members = library_symbols().members;
    const std::string stem = source.substr(0, source.rfind('.'));
    for (const std::string& name : {source + ".o", stem + ".o", source + ".obj", stem + ".obj"})
        if (auto it = members.find(name); it != members.end()) return &it->second;
    return nullptr;
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// "_ZN8lesson0713cublas_matmulC1Eb" -> "lesson07::cublas_matmul::cublas_matmul(bool)"
std::string readable(const std::string& name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> text(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && text ? std::string(text.get()) : name;
}

bool is_library_gemm_name(const std::string& name) {
    const std::string l = lower(name);
    return l.find("cublas") != std::string::npos || l.find("cutlass") != std::string::npos;
}

}  // namespace

std::string library_gemm_use(const std::string& source) {
    const symbol_table& table = library_symbols();
    if (!table.error.empty())
        return fmt::format("could not check that {} calls no library GEMM: {}", source,
                           table.error);
    const auto* own = symbols_of(source);
    if (!own)
        return fmt::format(
            "could not check that {} calls no library GEMM: {} has no object file "
            "compiled from it",
            source, library_path());

    // What matmul_cublas.cu defines (functions and data it exports): a
    // hand-written version may not call into it either.
    std::set<std::string> cublas_version;
    if (const auto* cublas_symbols = symbols_of("matmul_cublas.cu"))
        for (const symbol& s : *cublas_symbols)
            if (std::string("TDBRC").find(s.type) != std::string::npos)
                cublas_version.insert(s.name);

    std::vector<std::string> found;
    for (const symbol& s : *own) {
        const bool library = is_library_gemm_name(s.name);
        const bool calls_cublas_version = s.type == 'U' && cublas_version.count(s.name) > 0;
        if ((library || calls_cublas_version) &&
            std::find(found.begin(), found.end(), s.name) == found.end())
            found.push_back(s.name);
    }
    if (found.empty()) return {};
    // What says it best comes first: the GEMM itself (cublasSgemm_v2), then
    // the library's other C functions, then C++ names.
    auto rank = [](const std::string& name) {
        const std::string l = lower(name);
        if (l.find("gemm") != std::string::npos || l.find("matmul") != std::string::npos) return 0;
        return name.rfind("_Z", 0) != 0 ? 1 : 2;
    };
    std::stable_sort(found.begin(), found.end(),
                     [&](const std::string& x, const std::string& y) { return rank(x) < rank(y); });
    std::string list;
    for (std::size_t i = 0; i < found.size() && i < 4; ++i)
        list += (i ? ", " : "") + readable(found[i]);
    if (found.size() > 4) list += fmt::format(" and {} more", found.size() - 4);
    return fmt::format(
        "{} calls a library GEMM instead of computing the product itself (it refers to {}).\n"
        "The hand-written versions must do the multiplication in your own kernels: a version that "
        "calls cuBLAS, cuBLASLt, CUTLASS or the cuBLAS version of this lesson scores zero.",
        source, list);
}

}  // namespace lesson07::testing
