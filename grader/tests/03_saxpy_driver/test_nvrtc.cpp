// Graded tests for lesson03, part 1: NVRTC, the kernel cache and the argument
// checks. NVRTC is a compiler library and needs no GPU, so these are host
// tests: they run, and count, on any machine.
//
// What the tests check of the code under test (the PTX and CUBINs it makes,
// its keys, cache hits and files, what it threw) passes through observe():
// the grader's judge reruns these tests on the student's recorded results
// (course/testing/evidence.hpp).
#include <fmt/format.h>
#include <nvrtc.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "course/cuda_error.hpp"
#include "course/temp_dir.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/graded.hpp"
#include "nvrtc_compile.hpp"
#include "observed_call.hpp"
#include "saxpy_driver.hpp"

namespace {

namespace fs = std::filesystem;
using course::testing::observe;
using lesson03::saxpy_source;
using lesson03_tests::observe_call;
using lesson03_tests::observed_call;

// Line 4 has a syntax error; NVRTC's log says "broken.cu(4): error: ...".
constexpr const char* broken_source = R"(extern "C" __global__
void broken(float a, float* out)
{
    out[0] = a * ;
}
)";

// The first lines of a long text, for messages.
std::string head(const std::string& text, std::size_t lines = 12) {
    std::size_t end = 0;
    for (std::size_t i = 0; i < lines && end != std::string::npos; ++i) end = text.find('\n', end + 1);
    return end == std::string::npos ? text : text.substr(0, end) + "\n...";
}

// A CUBIN is an ELF file: it starts with the bytes 7f 'E' 'L' 'F'.
bool is_elf(const std::string& image) { return image.compare(0, 4, "\x7f" "ELF") == 0; }

bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

// Compares two CUBINs without printing kilobytes of binary: sizes and the
// first byte that differs.
void expect_same_image(const std::string& actual, const std::string& expected, const std::string& what) {
    if (actual == expected) return;
    std::size_t first = 0;
    while (first < actual.size() && first < expected.size() && actual[first] == expected[first]) ++first;
    ADD_FAILURE() << fmt::format("{}: {} bytes, expected the {} bytes stored; first difference at byte {}",
                                 what, actual.size(), expected.size(), first);
}

// The regular files in a cache directory.
std::vector<fs::path> entries(const fs::path& directory) {
    std::vector<fs::path> files;
    for (const auto& item : fs::directory_iterator(directory))
        if (item.is_regular_file()) files.push_back(item.path());
    return files;
}

// How many files the code under test left in a cache directory: evidence.
std::size_t observed_entries(const fs::path& directory) {
    return observe("files in the cache", entries(directory).size());
}

// A lookup's result as evidence: whether it hit, and the CUBIN it gave.
lesson03::kernel_cache::entry observed(lesson03::kernel_cache::entry entry) {
    entry.hit = observe("hit", entry.hit);
    entry.cubin = observe("CUBIN", std::move(entry.cubin));
    return entry;
}

std::string read_file(const fs::path& file) {
    std::ifstream in{file, std::ios::binary};
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& file, const std::string& bytes) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// How a compilation that should fail ended: the error, or nothing after
// recording why the test cannot use what happened.
std::optional<observed_call> expect_failed_compilation(const observed_call& call, const std::string& what) {
    if (call.kind == observed_call::cuda_error) return call;
    if (call.kind == observed_call::returned)
        ADD_FAILURE() << what << " compiled without complaint: check nvrtcCompileProgram's status, "
                                 "it does not throw by itself";
    else
        ADD_FAILURE() << what << " threw, but not a course::cuda_error: " << call.what
                      << "\nThrow lesson03::compile_error(status, name, log): it is a "
                         "course::cuda_error that carries NVRTC's status and log.";
    return std::nullopt;
}

// Runs `compile` expecting a failed compilation (see above).
template <class Compile>
std::optional<observed_call> expect_compile_failure(Compile compile, const std::string& what) {
    return expect_failed_compilation(observe_call("compilation", compile), what);
}

}  // namespace

// --- Step 1: NVRTC -------------------------------------------------------------

GRADED_HOST_TEST(Nvrtc, PtxHasEntryPoint, 2, "saxpy compiles to PTX with the entry point saxpy") {
    const std::string ptx =
        observe("PTX", lesson03::compile_to_ptx(saxpy_source, "saxpy.cu", {"--gpu-architecture=compute_90"}));
    ASSERT_FALSE(ptx.empty()) << "compile_to_ptx returned nothing: after compiling, ask for the size "
                                 "(nvrtcGetPTXSize), then the text (nvrtcGetPTX)";
    if (!contains(ptx, ".visible .entry saxpy("))
        ADD_FAILURE() << "the PTX has no entry point named saxpy. It starts:\n" << head(ptx);
    if (contains(ptx, std::string_view("\0", 1)))
        ADD_FAILURE() << fmt::format(
            "the PTX contains a NUL character (at {} of {} characters): nvrtcGetPTXSize counts the "
            "C string's terminator, which a std::string must not hold as text",
            ptx.find('\0'), ptx.size());
}

GRADED_HOST_TEST(Nvrtc, OptionsReachCompiler, 1, "the options choose the architecture of the PTX") {
    for (const char* arch : {"80", "90"}) {
        const std::string ptx = observe(
            "PTX", lesson03::compile_to_ptx(saxpy_source, "saxpy.cu",
                                            {std::string("--gpu-architecture=compute_") + arch}));
        if (!contains(ptx, std::string(".target sm_") + arch))
            ADD_FAILURE() << "compiled with --gpu-architecture=compute_" << arch
                          << ", but the PTX does not say .target sm_" << arch
                          << ": are the options given to nvrtcCompileProgram (count and array of C "
                             "strings)? The PTX starts:\n"
                          << head(ptx);
    }
}

GRADED_HOST_TEST(Nvrtc, SyntaxErrorShowsLog, 2, "a syntax error throws with NVRTC's log") {
    const auto error = expect_compile_failure(
        [] { lesson03::compile_to_ptx(broken_source, "broken.cu", {"--gpu-architecture=compute_90"}); },
        "a source with a syntax error");
    if (!error) return;
    EXPECT_EQ(error->code, NVRTC_ERROR_COMPILATION)
        << "expected status NVRTC_ERROR_COMPILATION, got " << error->code_name << ": " << error->what;
    if (!contains(error->what, "broken.cu(4): error"))
        ADD_FAILURE() << "the error should show NVRTC's log, which says what is wrong and on which "
                         "line (\"broken.cu(4): error: expected an expression\"). The status alone "
                         "does not: read the log with nvrtcGetProgramLogSize and nvrtcGetProgramLog, "
                         "and throw lesson03::compile_error(status, name, log). The message was:\n"
                      << error->what;
}

GRADED_HOST_TEST(Nvrtc, BadOptionReported, 1, "an unknown option throws, naming the option") {
    std::string ptx;
    const observed_call call = observe_call("compilation", [&] {
        ptx = lesson03::compile_to_ptx(saxpy_source, "saxpy.cu", {"--no-such-option"});
    });
    if (call.kind == observed_call::returned) {
        // NVRTC makes no PTX with an option it does not know: a whole PTX
        // shows the option never reached it; none shows a status ignored.
        if (contains(observe("PTX", std::move(ptx)), ".visible .entry saxpy("))
            ADD_FAILURE() << "a compilation with the option --no-such-option compiled without complaint "
                             "and returned PTX with saxpy in it, which NVRTC never makes with an option "
                             "it does not know: the option never reached NVRTC. Are the options given "
                             "to nvrtcCompileProgram (count and array of C strings)?";
        else
            ADD_FAILURE() << "a compilation with the option --no-such-option compiled without complaint: "
                             "check nvrtcCompileProgram's status, it does not throw by itself";
        return;
    }
    const auto error = expect_failed_compilation(call, "a compilation with the option --no-such-option");
    if (!error) return;
    EXPECT_EQ(error->code, NVRTC_ERROR_INVALID_OPTION)
        << "expected status NVRTC_ERROR_INVALID_OPTION, got " << error->code_name << ": " << error->what;
    if (!contains(error->what, "--no-such-option"))
        ADD_FAILURE() << "the message should name the option, as NVRTC's log does (\"unrecognized "
                         "option --no-such-option\"): every failed nvrtcCompileProgram needs the log, "
                         "not only syntax errors. The message was:\n"
                      << error->what;
}

GRADED_HOST_TEST(Nvrtc, CubinIsMachineCode, 1, "-arch=sm_90 gives a CUBIN (an ELF image)") {
    const std::string cubin =
        observe("CUBIN", lesson03::compile_to_cubin(saxpy_source, "saxpy.cu", {"-arch=sm_90"}));
    ASSERT_FALSE(cubin.empty()) << "compile_to_cubin returned nothing: read it with "
                                   "nvrtcGetCUBINSize and nvrtcGetCUBIN";
    EXPECT_TRUE(is_elf(cubin)) << "a CUBIN is an ELF file and starts with the bytes 7f 'E' 'L' 'F'; "
                                  "this one does not: is it the PTX (nvrtcGetPTX) instead?";
}

GRADED_HOST_TEST(Nvrtc, CubinNeedsRealArch, 1, "no CUBIN for a virtual architecture: std::invalid_argument") {
    std::size_t size = 0;
    const observed_call call = observe_call("compile_to_cubin for compute_90", [&] {
        size = lesson03::compile_to_cubin(saxpy_source, "saxpy.cu", {"-arch=compute_90"}).size();
    });
    if (call.kind == observed_call::returned)
        ADD_FAILURE() << "compiling for compute_90 returned a CUBIN of " << observe("CUBIN size", size)
                      << " bytes, but NVRTC makes none for a virtual architecture (it reports 0 "
                         "bytes): check the size and throw std::invalid_argument";
    else if (call.kind != observed_call::invalid_argument)
        ADD_FAILURE() << "expected std::invalid_argument, got: " << call.what;
}

// --- Step 5: the kernel cache --------------------------------------------------

GRADED_HOST_TEST(KernelCache, Fnv1a, 1, "FNV-1a 64 matches the published test values") {
    using lesson03::fnv1a_64;
    const auto hash = [](std::string_view bytes) { return observe("hash", fnv1a_64(bytes)); };
    EXPECT_EQ(hash(""), 0xcbf29ce484222325ull) << "the hash of nothing is the offset basis";
    EXPECT_EQ(hash("a"), 0xaf63dc4c8601ec8cull)
        << "per byte: xor the byte first, then multiply by 0x100000001b3";
    EXPECT_EQ(hash("foobar"), 0x85944171f73967e8ull);
    EXPECT_EQ(hash("\xff"), 0xaf64724c8602eb6eull)
        << "wrong for the byte 0xff: a plain char is signed here, so take bytes as unsigned char "
           "before the xor";
    const std::uint64_t hashed_on = observe("hash on", fnv1a_64("bar", fnv1a_64("foo")));
    EXPECT_EQ(hashed_on, hash("foobar"))
        << "hashing on from an earlier result should equal hashing the joined bytes: start from "
           "the hash argument, not from the offset basis";
}

GRADED_HOST_TEST(KernelCache, KeyCoversEverything, 1, "the key changes with the source, any option and the architecture") {
    const auto kernel_cache_key = [](const std::string& source, const std::vector<std::string>& options,
                                     const std::string& arch) {
        return observe("key", lesson03::kernel_cache_key(source, options, arch));
    };
    const std::string source = saxpy_source;
    const std::vector<std::string> options = {"--fmad=false", "-DTILE=4"};
    const auto key = kernel_cache_key(source, options, "sm_90");
    EXPECT_EQ(key, kernel_cache_key(source, options, "sm_90")) << "the same inputs must give the same key";
    EXPECT_NE(key, kernel_cache_key(source + " ", options, "sm_90")) << "the key ignores the source";
    EXPECT_NE(key, kernel_cache_key(source, {"--fmad=false", "-DTILE=8"}, "sm_90"))
        << "the key ignores the options (here the second one changed)";
    EXPECT_NE(key, kernel_cache_key(source, {"--fmad=false"}, "sm_90")) << "the key ignores a missing option";
    EXPECT_NE(key, kernel_cache_key(source, options, "sm_80")) << "the key ignores the architecture";
    EXPECT_NE(kernel_cache_key(source, {"-DA", "-DB"}, "sm_90"), kernel_cache_key(source, {"-DA-DB"}, "sm_90"))
        << "{\"-DA\", \"-DB\"} and {\"-DA-DB\"} give the same key: end each part with a separator "
           "('\\0') before hashing the next";
}

GRADED_HOST_TEST(KernelCache, SecondLookupHits, 2, "the second lookup reads the CUBIN from disk") {
    const course::temp_dir scratch("lesson03-cache");
    const fs::path directory = scratch / "not" / "yet" / "there";
    const std::vector<std::string> options{"--fmad=false"};

    const auto first =
        observed(lesson03::kernel_cache(directory).cubin(saxpy_source, "saxpy.cu", options, "sm_90"));
    EXPECT_FALSE(first.hit) << "the first lookup in an empty cache cannot be a hit";
    EXPECT_TRUE(is_elf(first.cubin)) << "the compiled entry is not a CUBIN (ELF)";
    ASSERT_TRUE(observe("the cache directory exists", fs::is_directory(directory)))
        << "the cache directory (with its parents) was not created";
    ASSERT_EQ(observed_entries(directory), 1u) << "after one compilation the cache should hold one file";

    // A new kernel_cache on the same directory: what a second start of the program sees.
    const auto second =
        observed(lesson03::kernel_cache(directory).cubin(saxpy_source, "saxpy.cu", options, "sm_90"));
    EXPECT_TRUE(second.hit) << "the same source, options and architecture again were compiled again "
                               "instead of read from the cache";
    expect_same_image(second.cubin, first.cubin, "the CUBIN read from the cache");
    EXPECT_EQ(observed_entries(directory), 1u) << "a hit should not add files";
}

GRADED_HOST_TEST(KernelCache, DifferentOptionsMiss, 1, "another option or architecture is a different entry") {
    const course::temp_dir scratch("lesson03-cache");
    const lesson03::kernel_cache cache(scratch.path());
    const auto hit = [&](const std::vector<std::string>& options, const std::string& arch) {
        return observe("hit", cache.cubin(saxpy_source, "saxpy.cu", options, arch).hit);
    };
    ASSERT_FALSE(hit({"--fmad=false"}, "sm_90"));

    EXPECT_FALSE(hit({"--fmad=true"}, "sm_90"))
        << "--fmad=true was served the entry compiled with --fmad=false: the options must be part of the key";
    EXPECT_FALSE(hit({"--fmad=false"}, "sm_80"))
        << "sm_80 was served the entry compiled for sm_90: the architecture must be part of the key";
    EXPECT_EQ(observed_entries(scratch.path()), 3u)
        << "three different compilations should leave three entries";
    EXPECT_TRUE(hit({"--fmad=false"}, "sm_90"))
        << "the first entry is no longer found after adding others";
}

GRADED_HOST_TEST(KernelCache, DamagedEntryRebuilt, 2, "a damaged entry is ignored and rebuilt") {
    const course::temp_dir scratch("lesson03-cache");
    const lesson03::kernel_cache cache(scratch.path());
    const std::vector<std::string> options{"--fmad=false"};
    const std::string good = observe("CUBIN", cache.cubin(saxpy_source, "saxpy.cu", options, "sm_90").cubin);
    const auto files = entries(scratch.path());
    ASSERT_EQ(observe("files in the cache", files.size()), 1u)
        << "after one compilation the cache should hold one file";
    // The entry is damaged where it lies: the judge damages the reference's
    // own entry the same way, so its bytes are not evidence.
    const fs::path entry = files.front();
    const std::string stored = read_file(entry);

    std::string flipped = stored;
    flipped[flipped.size() / 2] = static_cast<char>(~flipped[flipped.size() / 2]);
    const std::pair<const char*, std::string> damages[] = {
        {"cut to half its length (a program stopped while writing it)", stored.substr(0, stored.size() / 2)},
        {"with one byte in the middle changed", flipped},
        {"empty", ""},
        {"overwritten with text", "this is not a kernel"},
    };
    for (const auto& [how, bytes] : damages) {
        SCOPED_TRACE(std::string("the entry file ") + how);
        write_file(entry, bytes);
        lesson03::kernel_cache::entry rebuilt{};
        const observed_call lookup = observe_call("lookup of the damaged entry", [&] {
            rebuilt = cache.cubin(saxpy_source, "saxpy.cu", options, "sm_90");
        });
        if (lookup.kind != observed_call::returned) {
            ADD_FAILURE() << "a damaged entry made the lookup throw: " << lookup.what
                          << "\nA damaged entry is a miss: compile again and store the result.";
            continue;
        }
        rebuilt = observed(std::move(rebuilt));
        EXPECT_FALSE(rebuilt.hit) << "a damaged entry was trusted: store the CUBIN's length and a "
                                     "checksum (FNV-1a) with it, and check both when reading";
        if (rebuilt.hit) continue;  // the one message above says it all
        expect_same_image(rebuilt.cubin, good, "the rebuilt CUBIN");
        EXPECT_TRUE(observe("hit", cache.cubin(saxpy_source, "saxpy.cu", options, "sm_90").hit))
            << "after a rebuild the entry should be stored again and hit";
    }
}

// --- Step 4's argument checks: before anything touches the GPU -------------------

GRADED_HOST_TEST(Saxpy, EmptyInput, 1, "empty x and y give an empty result, GPU untouched") {
    lesson03::saxpy_options options;
    options.cache_dir.clear();
    const std::vector<float> out = observe("result", lesson03::saxpy_driver(2.0f, {}, {}, options));
    EXPECT_TRUE(out.empty()) << "saxpy of empty vectors returned " << out.size() << " elements";
}

GRADED_HOST_TEST(Saxpy, MismatchedSizes, 1, "x and y of different lengths: std::invalid_argument") {
    lesson03::saxpy_options options;
    options.cache_dir.clear();
    const observed_call call = observe_call("saxpy_driver of 10 and 9 elements", [&] {
        lesson03::saxpy_driver(2.0f, std::vector<float>(10, 1.0f), std::vector<float>(9, 1.0f), options);
    });
    if (call.kind == observed_call::returned)
        ADD_FAILURE() << "x of 10 elements and y of 9 were accepted: the kernel would read past y's end";
    else if (call.kind != observed_call::invalid_argument)
        ADD_FAILURE() << "expected std::invalid_argument before anything touches the GPU, got: " << call.what;
}
