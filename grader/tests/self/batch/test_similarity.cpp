// Flagging similar submissions (similarity.hpp, similarity_report.hpp): on
// lesson07's real skeleton and solution, a copy of the solution is flagged,
// and so is the same copy with its variables renamed and its functions
// reordered; two students who share one kernel are flagged together;
// independently written right answers and an untouched skeleton are not.
// The figures each case came to are printed, so a change of the settings
// shows what it does.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "batch/course_versions.hpp"
#include "batch/gradebook.hpp"
#include "batch/similarity_report.hpp"
#include "batch_test_files.hpp"
#include "checkout/manifest.hpp"
#include "system/user_error.hpp"

namespace grader {
namespace {

namespace fs = std::filesystem;

const fs::path course_root = fs::path(GRADER_FIXTURES).parent_path().parent_path().parent_path();

// lesson07 as this test's own build lists it: four files, a skeleton each.
struct SimilarityOnMatmul : ::testing::Test {
    static void SetUpTestSuite() {
        course = load_manifest(GRADER_BUILD_DIR);
        lesson = course.find("lesson07");
        ASSERT_NE(lesson, nullptr);
        skeleton = read_lesson_skeleton(course, *lesson);
        versions = read_course_versions(course, *lesson, skeleton);
    }
    static std::map<std::string, std::string> from(const std::string& folder) {
        std::map<std::string, std::string> files;
        for (const auto& source : lesson->sources)
            files[source] = batch_test::read(course_root / folder / "07_matmul" / source);
        return files;
    }
    static similarity_document student(const std::string& name, const std::map<std::string, std::string>& files) {
        return make_document(name, source_kind::student, files, skeleton);
    }
    static inline manifest course;
    static inline const lesson_info* lesson = nullptr;
    static inline lesson_skeleton skeleton;
    static inline std::vector<similarity_document> versions;
};

// The pair of these two, flagged or not, with its figures printed.
std::optional<similar_pair> pair_of(const std::vector<similar_pair>& pairs, const std::string& a, const std::string& b) {
    for (const auto& p : pairs)
        if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return p;
    return std::nullopt;
}

std::string percent_of(const similar_pair& p) {
    return std::to_string(static_cast<int>(100 * p.similarity)) + "%" + (p.file.empty() ? "" : " in " + p.file) +
           " (" + std::to_string(p.matched_a) + " / " + std::to_string(p.matched_b) + " tokens)";
}

// The figures of a pair whether or not it is flagged: compared with a
// threshold of (almost) nothing and no minimum.
similar_pair figures(const similarity_document& a, const similarity_document& b) {
    similarity_settings everything;
    everything.threshold = 1e-9;
    everything.min_matched_tokens = 0;
    const auto pairs = b.kind == source_kind::student ? find_similar_pairs({a, b}, {}, everything)
                                                      : find_similar_pairs({a}, {b}, everything);
    if (pairs.empty()) {
        std::cout << "  " << a.name << " ~ " << describe_source(b.kind, b.name) << ": 0% (no run of "
                  << everything.k << " tokens in common)\n";
        similar_pair none;
        none.a = a.name;
        none.b = b.name;
        return none;
    }
    std::cout << "  " << a.name << " ~ " << describe_source(pairs[0].b_kind, b.name) << ": "
              << static_cast<int>(100 * pairs[0].similarity) << "% (" << pairs[0].matched_a << " of "
              << a.token_count() << " tokens / " << pairs[0].matched_b << " of " << b.token_count() << ")\n";
    return pairs[0];
}

// The solution with its own variables renamed and, in every file, the
// host function moved above the kernels (its declaration would have to go
// first to compile; what is compared is the same either way).
std::map<std::string, std::string> renamed_and_reordered(std::map<std::string, std::string> files) {
    const std::vector<std::pair<std::string, std::string>> renames = {
        {"tile_row", "first_row"}, {"sum", "acc"},    {"a_row", "ra"},        {"a_col", "ca"},
        {"b_row", "rb"},           {"b_k", "bvals"},  {"a_k", "avec"},        {"rows_per_thread", "per_thread"},
        {"block_rows", "rows_in_block"}, {"M", "rows"}, {"N", "cols"},        {"K", "inner"},
        {"row", "r_out"},          {"col", "c_out"},  {"tx", "lane"},         {"ty", "wy"}};
    for (auto& [name, text] : files) {
        for (const auto& [from, to] : renames) text = std::regex_replace(text, std::regex("\\b" + from + "\\b"), to);
        const auto host = text.find("\nvoid lesson07::");
        const auto includes_end = text.find('\n', text.rfind("#include")) + 1;
        if (host == std::string::npos || includes_end == 0 || includes_end > host) continue;
        text = text.substr(0, includes_end) + text.substr(host + 1) + "\n" + text.substr(includes_end, host + 1 - includes_end);
    }
    return files;
}

// Every `for (init; cond; step) { body }` rewritten as `init; while (cond) {
// body step; }`, innermost first.
std::string fors_as_whiles(std::string text) {
    for (auto at = text.rfind("for ("); at != std::string::npos; at = at == 0 ? std::string::npos : text.rfind("for (", at - 1)) {
        const auto close = text.find(')', at);
        const auto s1 = text.find(';', at), s2 = text.find(';', s1 + 1);
        const auto open_brace = text.find('{', close);
        if (s2 > close || open_brace == std::string::npos ||
            text.find_first_not_of(" \n", close + 1) != open_brace)  // a body without braces stays a for
            continue;
        std::size_t end = open_brace;
        for (int depth = 0; end < text.size(); ++end) {
            if (text[end] == '{') ++depth;
            if (text[end] == '}' && --depth == 0) break;
        }
        if (end == text.size()) continue;
        const std::string init = text.substr(at + 5, s1 - at - 5), cond = text.substr(s1 + 1, s2 - s1 - 1),
                          step = text.substr(s2 + 1, close - s2 - 1);
        text = text.substr(0, at) + init + "; while (" + cond + ") {" + text.substr(open_brace + 1, end - open_brace - 1) +
               step + ";\n}" + text.substr(end + 1);
    }
    return text;
}

// The lazy evasions of issue 81, on every file: the student's own names
// renamed, every for loop a while loop, and a `;` after every statement
// and every closing brace.
std::map<std::string, std::string> lazily_disguised(std::map<std::string, std::string> files) {
    const std::vector<std::pair<std::string, std::string>> renames = {
        {"tile_row", "first_row"}, {"sum", "acc"}, {"a_row", "ra"}, {"a_col", "ca"}, {"b_row", "rb"},
        {"b_k", "bvals"}, {"a_k", "avec"}, {"M", "rows"}, {"N", "cols"}, {"K", "inner"}, {"row", "r_out"},
        {"col", "c_out"}, {"tx", "lane"}, {"ty", "wy"}, {"k0", "base"}, {"r", "rr"}, {"i", "q"}};
    for (auto& [name, text] : files) {
        for (const auto& [from, to] : renames) text = std::regex_replace(text, std::regex("\\b" + from + "\\b"), to);
        text = fors_as_whiles(text);
        text = std::regex_replace(text, std::regex(";"), ";;");
        text = std::regex_replace(text, std::regex("\\}\n"), "};\n");
    }
    return files;
}

// Two tiled kernels written independently of each other and of the course:
// each is a right answer (two rows per thread of a 32 x 16 block; eight rows
// per thread of a 32 x 4 block, loads in a strided loop), different in shape.
const char* const tiled_two_rows = R"(// Lesson 07, part 2: the shared-memory tiled matrix product.
#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

namespace {
constexpr int tile = 32;
}  // namespace

__global__ void matmul_tiled_kernel(const_matrix a, const_matrix b, matrix c) {
    __shared__ float a_tile[tile][tile];
    __shared__ float b_tile[tile][tile];
    const int rows = static_cast<int>(c.rows()), cols = static_cast<int>(c.cols());
    const int depth = static_cast<int>(a.cols());
    const int x = threadIdx.x;
    const int first = threadIdx.y * 2;  // this thread's rows of the tile: first and first + 1
    const int out_col = blockIdx.x * tile + x;
    const int out_row = blockIdx.y * tile + first;
    float top = 0.0f, bottom = 0.0f;
    for (int step = 0; step * tile < depth; ++step) {
        const int k_base = step * tile;
        for (int half = 0; half < 2; ++half) {
            const int r = first + half;
            float av = 0.0f, bv = 0.0f;
            if (out_row + half < rows && k_base + x < depth) av = a(out_row + half, k_base + x);
            if (k_base + r < depth && out_col < cols) bv = b(k_base + r, out_col);
            a_tile[r][x] = av;
            b_tile[r][x] = bv;
        }
        __syncthreads();
        for (int j = 0; j < tile; ++j) {
            const float shared_b = b_tile[j][x];
            top += a_tile[first][j] * shared_b;
            bottom += a_tile[first + 1][j] * shared_b;
        }
        __syncthreads();
    }
    if (out_col < cols) {
        if (out_row < rows) c(out_row, out_col) = top;
        if (out_row + 1 < rows) c(out_row + 1, out_col) = bottom;
    }
}

}  // namespace lesson07

void lesson07::matmul_tiled(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    check_shapes(a, b, c, "matmul_tiled");
    dim3 threads(tile, tile / 2);
    dim3 blocks((c.cols() + tile - 1) / tile, (c.rows() + tile - 1) / tile);
    matmul_tiled_kernel<<<blocks, threads, 0, stream>>>(a, b, c);
    CUDA_CHECK(cudaGetLastError());
}
)";

const char* const tiled_eight_rows = R"(// Lesson 07, part 2: the shared-memory tiled matrix product.
// Grade your work with:  grader run lesson07
#include "course/error.hpp"
#include "course/launch.hpp"
#include "matmul_kernels.cuh"

namespace lesson07 {

namespace {
// A block computes a tile x tile square of C, reading A and B in tile x tile
// squares.
constexpr int tile = 32;
}  // namespace

__global__ void matmul_tiled_kernel(const_matrix a, const_matrix b, matrix c) {
    __shared__ float a_tile[tile][tile];
    __shared__ float b_tile[tile][tile];
    int n_rows = c.rows();
    int n_cols = c.cols();
    int inner = a.cols();
    int lane = threadIdx.x;
    int group = threadIdx.y;  // rows group, group + 4, group + 8, ...
    int column = blockIdx.x * tile + lane;
    float acc[8];
    for (int q = 0; q < 8; q++) acc[q] = 0;
    int k0 = 0;
    while (k0 < inner) {
        for (int r = group; r < tile; r += 4) {
            int global_row = blockIdx.y * tile + r;
            if (global_row < n_rows && k0 + lane < inner)
                a_tile[r][lane] = a(global_row, k0 + lane);
            else
                a_tile[r][lane] = 0;
            if (k0 + r < inner && column < n_cols)
                b_tile[r][lane] = b(k0 + r, column);
            else
                b_tile[r][lane] = 0;
        }
        __syncthreads();
        for (int kk = 0; kk < tile; kk++) {
            float bval = b_tile[kk][lane];
            for (int q = 0; q < 8; q++) acc[q] = fmaf(a_tile[group + 4 * q][kk], bval, acc[q]);
        }
        __syncthreads();
        k0 += tile;
    }
    for (int q = 0; q < 8; q++) {
        int global_row = blockIdx.y * tile + group + 4 * q;
        if (global_row < n_rows && column < n_cols) c(global_row, column) = acc[q];
    }
}

}  // namespace lesson07

void lesson07::matmul_tiled(const_matrix a, const_matrix b, matrix c, cudaStream_t stream) {
    check_shapes(a, b, c, "matmul_tiled");
    dim3 block(tile, 4);
    dim3 grid(course::blocks_for(c.cols(), tile), course::blocks_for(c.rows(), tile));
    matmul_tiled_kernel<<<grid, block, 0, stream>>>(a, b, c);
    CUDA_CHECK(cudaGetLastError());
}
)";

// The skeleton with only matmul_tiled.cu replaced by `tiled`.
std::map<std::string, std::string> with_tiled(const std::string& tiled) { return {{"matmul_tiled.cu", tiled}}; }

TEST(SimilarityTokens, RenamingAndReformattingChangeNothing) {
    const std::set<std::string> known = {"out", "n"};
    const auto a = tokenize_source("for (int i = 0; i < n; ++i) out[i] = 2 * x[i]; // doubled\n", known);
    const auto b = tokenize_source("/* a loop */ for(int k=0;k<n;++k)\n    out[k] = 7*input[k];", known);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].hash, b[i].hash) << "token " << i;
    // int k = 0 <loop> ( k < n ) out [ k ] = 7 * input [ k ] ++ k: the step after the body, on its own line.
    ASSERT_EQ(b.size(), 23u);
    EXPECT_EQ(b[10].line, 2);
    EXPECT_EQ(b.back().line, 1);
    // A name the skeleton gave, a built-in, or a member, is kept as it is.
    const auto renamed_given = tokenize_source("for (int i = 0; i < m; ++i) out[i] = 2 * x[i];", known);
    EXPECT_NE(renamed_given[8].hash, a[8].hash) << "n is the skeleton's; m is not";
    EXPECT_NE(tokenize_source("threadIdx.x", {})[0].hash, tokenize_source("threadIdy.x", {})[0].hash);
    EXPECT_NE(tokenize_source("v.x", {})[2].hash, tokenize_source("v.y", {})[2].hash);
}

// The same tokens, or the first place they differ.
void expect_same_stream(const std::string& a, const std::string& b) {
    const auto x = tokenize_source(a, {"out", "n"}), y = tokenize_source(b, {"out", "n"});
    EXPECT_EQ(x.size(), y.size()) << a << "\n  vs\n" << b;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
        if (x[i].hash != y[i].hash) {
            ADD_FAILURE() << "token " << i << " differs:\n" << a << "\n  vs\n" << b;
            return;
        }
}

TEST(SimilarityTokens, LoopFormsEmptyStatementsAndDecorationsChangeNothing) {
    const std::string loop = "float s = 0; for (int i = 0; i < n; i++) { s += x[i]; } out[0] = s;";
    expect_same_stream(loop, "float s = 0; for (int i = 0; i < n; ++i) s += x[i]; out[0] = s;");
    expect_same_stream(loop, "float s = 0; int i = 0; while (i < n) { s += x[i]; ++i; } out[0] = s;");
    expect_same_stream(loop, "float s = 0;; int i = 0;; while (i < n) { s += x[i];; i++;; };; out[0] = s;;");
    expect_same_stream(loop, "float s = 0; int i = 0; do { s += x[i]; i++; } while (i < n); out[0] = s;");
    expect_same_stream(loop, "float s = (0); const int i = 0; while ((i < n)) { s += x[(i)]; i++; } out[0] = (s);");
    // Nested, and with a body of one statement that is a loop itself.
    expect_same_stream("for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) out[i] += x[j];",
                       "int i = 0;\nwhile (i < n) {\n  int j = 0;\n  while (j < n) { out[i] += x[j]; j++; }\n  i++;\n}");
    expect_same_stream("#pragma unroll\nfor (int i = 0; i < 4; ++i) out[i] = 0;",
                       "for (int i = 0; i < 4; ++i) { out[i] = 0; }");
    // What is not the same stays apart.
    const auto a = tokenize_source("out[i] = x[i] + 1;", {}), b = tokenize_source("out[i] = x[i] - 1;", {});
    ASSERT_EQ(a.size(), b.size());
    EXPECT_NE(a[9].hash, b[9].hash);
}

TEST(SimilarityTokens, OwnLinesAreTheOnesTheSkeletonDoesNotHave) {
    const std::string skeleton = "void f() {\n    // TODO\n}\n\nvoid g() {\n}\n";
    const std::string text = "void f() {\n  int x = 1;\n}\n\nvoid   g() {\n  return;\n}\n";
    const std::vector<bool> own = own_lines(text, skeleton);
    EXPECT_EQ(own, (std::vector<bool>{false, false, true, false, false, false, true, false}))
        << "lines 2 and 6 are the student's; re-spacing a skeleton line does not make it theirs";
    EXPECT_EQ(own_lines(skeleton, skeleton), std::vector<bool>(7, false));
}

TEST(SimilarityCourseVersions, AppliesAUnifiedDiffWhereItsLinesAre) {
    const std::map<std::string, std::string> files = {{"k.cu", "a\nb\nc\nd\ne\n"}, {"other.cu", "x\n"}};
    const std::string patch = "--- a/k.cu\n+++ b/k.cu\n@@ -3,2 +3,2 @@\n c\n-d\n+D\n";
    const auto patched = apply_unified_diff(files, patch);
    ASSERT_TRUE(patched);
    EXPECT_EQ(patched->at("k.cu"), "a\nb\nc\nD\ne\n");
    EXPECT_EQ(patched->at("other.cu"), "x\n");
    EXPECT_FALSE(apply_unified_diff(files, "--- a/k.cu\n+++ b/k.cu\n@@ -1 +1 @@\n-z\n+y\n")) << "no line z";
}

TEST_F(SimilarityOnMatmul, ComparesWithTheSolutionItsTextbookFormsAndKnownWrongVersions) {
    ASSERT_FALSE(versions.empty());
    EXPECT_EQ(versions.front().kind, source_kind::reference);
    const auto count = [&](source_kind kind) {
        return std::count_if(versions.begin(), versions.end(), [&](const auto& v) { return v.kind == kind; });
    };
    EXPECT_GE(count(source_kind::textbook), 2) << "tiled_16x16, tiled_32x32, ...: every patch applies";
    EXPECT_GE(count(source_kind::known_wrong), 3);
    EXPECT_GT(versions.front().token_count(), 500u) << "the solution's own code, not the skeleton's";
}

TEST_F(SimilarityOnMatmul, ACopyOfTheSolutionIsFlaggedAndTheSkeletonIsNot) {
    const similarity_document copy = student("copy", from("solutions"));
    const similarity_document skeleton_student = student("skeleton", from("exercises"));
    EXPECT_EQ(skeleton_student.token_count(), 0u) << "an untouched skeleton wrote nothing of its own";
    EXPECT_DOUBLE_EQ(figures(copy, versions.front()).similarity, 1.0);

    const auto pairs = find_similar_pairs({copy, skeleton_student}, versions, {});
    ASSERT_EQ(pairs.size(), 1u) << "only the copy, and only against its closest version";
    EXPECT_EQ(pairs[0].a, "copy");
    EXPECT_EQ(pairs[0].b_kind, source_kind::reference) << "the solution, not a known-wrong version a line away";
    EXPECT_FALSE(pair_of(pairs, "skeleton", "solution"));
    ASSERT_FALSE(pairs[0].lines_a.empty());
    EXPECT_FALSE(pairs[0].excerpt_a.empty());
}

TEST_F(SimilarityOnMatmul, RenamedVariablesAndReorderedFunctionsChangeNothing) {
    const auto files = renamed_and_reordered(from("solutions"));
    ASSERT_NE(files.at("matmul_tiled.cu"), from("solutions").at("matmul_tiled.cu"));
    ASSERT_LT(files.at("matmul_tiled.cu").find("void lesson07::"), files.at("matmul_tiled.cu").find("__global__"));
    const similarity_document renamed = student("renamed", files);
    EXPECT_GE(figures(renamed, versions.front()).similarity, 0.9);
    const auto pairs = find_similar_pairs({renamed}, versions, {});
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].b_kind, source_kind::reference);
}

// Issue 81: renaming, a for made a while and a `;` after every statement
// took the tiled kernel from 100% to 39%, unflagged.
TEST_F(SimilarityOnMatmul, TheLazyEvasionsChangeNothing) {
    const auto files = lazily_disguised({{"matmul_tiled.cu", from("solutions").at("matmul_tiled.cu")}});
    const std::string& text = files.at("matmul_tiled.cu");
    ASSERT_EQ(text.find("for ("), std::string::npos) << text;  // every loop of the tiled kernel has braces
    ASSERT_NE(text.find("int base = 0;; while ( base < inner) {"), std::string::npos) << text;
    ASSERT_NE(text.find("__syncthreads();;"), std::string::npos) << text;
    const similarity_document disguised = student("disguised", files);
    EXPECT_GE(figures(disguised, versions.front()).similarity, 0.9);
    const auto pairs = find_similar_pairs({disguised}, versions, {});
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].b_kind, source_kind::reference);
    EXPECT_EQ(pairs[0].file, "") << "flagged for all it wrote, not file by file";
    // All four files disguised: the same.
    const similarity_document all = student("all_disguised", lazily_disguised(from("solutions")));
    EXPECT_GE(figures(all, versions.front()).similarity, 0.9);
}

TEST_F(SimilarityOnMatmul, TwoStudentsSharingOneKernelAreBothFlagged) {
    // ben took ada's kernel and renamed what he could; ada is flagged as much as he is.
    std::string shared = tiled_two_rows;
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"first", "base"}, {"top", "upper"}, {"bottom", "lower"}, {"shared_b", "bk"}, {"step", "t"}})
        shared = std::regex_replace(shared, std::regex("\\b" + from + "\\b"), to);
    const similarity_document ada = student("ada", with_tiled(tiled_two_rows)),
                              ben = student("ben", with_tiled(shared)),
                              cleo = student("cleo", with_tiled(tiled_eight_rows));
    EXPECT_GE(figures(ada, ben).similarity, 0.9);
    const class_similarity result{{}, 3, {}, find_similar_pairs({ada, ben, cleo}, versions, {}), 0};
    ASSERT_TRUE(pair_of(result.pairs, "ada", "ben"));
    const auto flags = similarity_flags(result);
    ASSERT_EQ(flags.count("ada"), 1u);
    ASSERT_EQ(flags.count("ben"), 1u);
    EXPECT_NE(flags.at("ada").find("similar to ben "), std::string::npos) << flags.at("ada");
    EXPECT_NE(flags.at("ben").find("similar to ada "), std::string::npos) << flags.at("ben");
    EXPECT_NE(flags.at("ada").find("matmul_tiled.cu lines "), std::string::npos) << flags.at("ada");
    EXPECT_EQ(flags.count("cleo"), 0u);
}

TEST_F(SimilarityOnMatmul, IndependentlyWrittenRightAnswersAreNotFlagged) {
    const similarity_document two = student("two_rows", with_tiled(tiled_two_rows)),
                              eight = student("eight_rows", with_tiled(tiled_eight_rows));
    EXPECT_LT(figures(two, eight).similarity, similarity_settings{}.threshold);
    for (const auto& v : versions) {
        figures(two, v);
        figures(eight, v);
    }
    const auto pairs = find_similar_pairs({two, eight}, versions, {});
    for (const auto& p : pairs) ADD_FAILURE() << p.a << " flagged with " << p.b << " at " << p.similarity;
}

// What batch_command does with a class, through to the gradebook: the
// copy's row says whom it resembles, the skeleton's says nothing, and no
// score moves.
TEST_F(SimilarityOnMatmul, TheGradebookShowsTheFlagAndNoScoreChanges) {
    submission copy{"copy", "copy", {}, from("solutions"), {}};
    submission skel{"skeleton", "skeleton", {}, from("exercises"), {}};
    const class_similarity result = compare_class(course, *lesson, {&copy, &skel}, {});
    ASSERT_EQ(result.pairs.size(), 1u);
    EXPECT_EQ(result.compared_with.front(), "the reference solution");

    lesson_report report;
    report.lesson_id = "lesson07";
    graded_test t{"Matmul.Naive", "naive", 2};
    t.status = test_status::passed;
    report.tests = {t};
    std::vector<batch_result> rows(2);
    rows[0].student = "copy";
    rows[1].student = "skeleton";
    rows[0].report = rows[1].report = report;
    const std::string flagged = format_gradebook_csv(rows, similarity_flags(result));
    const std::string plain = format_gradebook_csv(rows);
    EXPECT_NE(flagged.find("student,score,max_score,Matmul.Naive,note,similarity\r\n"), std::string::npos) << flagged;
    EXPECT_NE(flagged.find("copy,2,2,2,,similar to the reference solution 100% (matmul_"), std::string::npos)
        << flagged;
    EXPECT_NE(flagged.find("\r\nskeleton,2,2,2,,\r\n"), std::string::npos) << flagged;
    EXPECT_EQ(plain.find("similar"), std::string::npos) << "no flags, no column";

    const auto json = similarity_json(result);
    EXPECT_EQ(json["schema"], "course-similarity/1");
    EXPECT_EQ(json["pairs"][0]["other_kind"], "reference");
    EXPECT_FALSE(json["pairs"][0]["lines_student"].empty());
}

// lesson05: events.cu is about 50 tokens of the student's own, under the
// 100 a pair needs in all. It is compared file by file.
struct SimilarityOnStreams : ::testing::Test {
    static void SetUpTestSuite() {
        course = load_manifest(GRADER_BUILD_DIR);
        lesson = course.find("lesson05");
        ASSERT_NE(lesson, nullptr);
        skeleton = read_lesson_skeleton(course, *lesson);
        versions = read_course_versions(course, *lesson, skeleton);
    }
    static std::string solution(const std::string& name) {
        return batch_test::read(course_root / "solutions" / "05_streams" / name);
    }
    static similarity_document student(const std::string& name, const std::map<std::string, std::string>& files) {
        return make_document(name, source_kind::student, files, skeleton);
    }
    static inline manifest course;
    static inline const lesson_info* lesson = nullptr;
    static inline lesson_skeleton skeleton;
    static inline std::vector<similarity_document> versions;
};

// The TODOs completed another way: the runtime API's own events, not the
// course's wrapper.
const char* const events_own_way = R"(// Lesson 05: timing with events and cross-stream dependencies.
// Read lessons/05_streams/README.md first. Grade your work with:  grader run lesson05
#include "course/error.hpp"
#include "course/event.hpp"
#include "streams.cuh"

course::milliseconds lesson05::time_with_events(cudaStream_t stream,
                                                const std::function<void(cudaStream_t)>& work) {
    cudaEvent_t before = nullptr, after = nullptr;
    CUDA_CHECK(cudaEventCreate(&before));
    CUDA_CHECK(cudaEventCreate(&after));
    CUDA_CHECK(cudaEventRecord(before, stream));
    work(stream);
    CUDA_CHECK(cudaEventRecord(after, stream));
    CUDA_CHECK(cudaEventSynchronize(after));
    float elapsed = 0;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed, before, after));
    cudaEventDestroy(before);
    cudaEventDestroy(after);
    return course::milliseconds(elapsed);
}

void lesson05::add_dependency(cudaStream_t producer, cudaStream_t consumer, course::event& marker) {
    CUDA_CHECK(cudaEventRecord(marker.get(), producer));
    CUDA_CHECK(cudaStreamWaitEvent(consumer, marker.get()));
}
)";

TEST_F(SimilarityOnStreams, ACopiedSmallFileIsFlaggedFileByFile) {
    const similarity_document copy = student("copy", {{"events.cu", solution("events.cu")}});
    ASSERT_GT(copy.token_count(), 0u);
    ASSERT_LT(copy.token_count(), similarity_settings{}.min_matched_tokens) << "a small file: under the pair's floor";
    std::cout << "  events.cu: " << copy.token_count() << " tokens of the student's own\n";
    // Disguised as issue 81 says: renamed, and a `;` after every statement.
    std::string disguised = std::regex_replace(solution("events.cu"), std::regex("\\bstart\\b"), "t0");
    disguised = std::regex_replace(std::regex_replace(disguised, std::regex("\\bstop\\b"), "t1"), std::regex(";"), ";;");
    const similarity_document hidden = student("hidden", {{"events.cu", disguised}});
    const similarity_document own = student("own_way", {{"events.cu", events_own_way}});

    const auto pairs = find_similar_pairs({copy, hidden, own}, versions, {});
    for (const auto& p : pairs)
        std::cout << "  " << p.a << " ~ " << describe_source(p.b_kind, p.b) << ": " << percent_of(p) << "\n";
    const auto to_solution = [&](const std::string& name) {
        for (const auto& p : pairs)
            if (p.a == name && p.b_kind == source_kind::reference) return std::optional<similar_pair>(p);
        return std::optional<similar_pair>();
    };
    for (const char* name : {"copy", "hidden"}) {
        const auto p = to_solution(name);
        ASSERT_TRUE(p) << name << " is not flagged with the solution";
        EXPECT_EQ(p->file, "events.cu");
        EXPECT_GE(p->similarity, 0.9);
        ASSERT_FALSE(p->lines_a.empty());
        EXPECT_EQ(p->lines_a.front().file, "events.cu");
    }
    EXPECT_TRUE(pair_of(pairs, "copy", "hidden")) << "two students who share the file";
    EXPECT_FALSE(to_solution("own_way")) << "the TODOs completed another way";
    EXPECT_FALSE(pair_of(pairs, "own_way", "copy"));
    EXPECT_FALSE(pair_of(pairs, "own_way", "hidden"));

    const class_similarity result{{}, 3, {}, pairs, 0};
    const auto flags = similarity_flags(result);
    ASSERT_EQ(flags.count("copy"), 1u);
    EXPECT_NE(flags.at("copy").find("the reference solution 100% in events.cu (events.cu lines "), std::string::npos)
        << flags.at("copy");
    EXPECT_EQ(flags.count("own_way"), 0u);
}

// What most of a class wrote in a file, its TODOs dictated: a class of 12
// who all wrote events.cu the reference's way (each naming the events their
// own way) is not 66 pairs alike, while 3 of them are.
TEST_F(SimilarityOnStreams, WhatMostOfAClassWroteInASmallFileIsNotAFlag) {
    std::vector<similarity_document> docs;
    for (int i = 0; i < 12; ++i) {
        std::string text = std::regex_replace(solution("events.cu"), std::regex("\\bstart\\b"), "s" + std::to_string(i));
        docs.push_back(student("student" + std::to_string(10 + i), {{"events.cu", text}}));
    }
    EXPECT_TRUE(find_similar_pairs(docs, versions, {}).empty());
    docs.resize(3);
    EXPECT_EQ(find_similar_pairs(docs, versions, {}).size(), 3u + 3u) << "3 pairs, and each with the solution";
}

// lesson07: one file copied whole (the naive kernel) beside a tiled kernel
// of one's own is under half of all the student wrote, and flagged by its file.
TEST_F(SimilarityOnMatmul, OneCopiedFileAmongOwnWorkIsFlaggedByItsFile) {
    auto files = with_tiled(tiled_two_rows);
    files["matmul_naive.cu"] = from("solutions").at("matmul_naive.cu");
    const similarity_document mixed = student("mixed", files);
    const similar_pair whole = figures(mixed, versions.front());
    EXPECT_LT(whole.similarity, similarity_settings{}.threshold);
    const auto pairs = find_similar_pairs({mixed}, versions, {});
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].file, "matmul_naive.cu");
    EXPECT_EQ(pairs[0].b_kind, source_kind::reference);
    EXPECT_GE(pairs[0].similarity, 0.9);
}

TEST(SimilarityThreshold, ReadsAShareAPercentageOrOff) {
    EXPECT_EQ(parse_similarity_threshold("0.6"), 0.6);
    EXPECT_EQ(parse_similarity_threshold("75%"), 0.75);
    EXPECT_EQ(parse_similarity_threshold("off"), std::nullopt);
    EXPECT_EQ(parse_similarity_threshold("0"), std::nullopt);
    EXPECT_THROW(parse_similarity_threshold("1.5"), user_error);
    EXPECT_THROW(parse_similarity_threshold("lots"), user_error);
}

// 300 students, each the solution with one line of their own, so every pair
// shares most of its fingerprints: the worst case for the index. Fast
// enough not to be noticed beside the grading.
TEST_F(SimilarityOnMatmul, AClassOf300IsComparedInSeconds) {
    std::vector<similarity_document> docs;
    auto files = from("solutions");
    for (int i = 0; i < 300; ++i) {
        files["matmul_naive.cu"] += "\n// " + std::to_string(i) + "\nint extra_" + std::to_string(i) + " = " +
                                    std::to_string(i) + ";\n";
        docs.push_back(student("s" + std::to_string(1000 + i), files));
    }
    const auto started = std::chrono::steady_clock::now();
    const auto pairs = find_similar_pairs(docs, versions, {});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "  300 students, " << versions.size() << " course versions: " << pairs.size() << " pairs in "
              << seconds << " s\n";
    EXPECT_EQ(pairs.size(), 300u * 299 / 2 + 300);
    EXPECT_LT(seconds, 30.0) << "a generous bound on a shared machine; the aim is a few seconds";
}

}  // namespace
}  // namespace grader
