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
    EXPECT_EQ(b.back().line, 2);
    // A name the skeleton gave, a built-in, or a member, is kept as it is.
    const auto renamed_given = tokenize_source("for (int i = 0; i < m; ++i) out[i] = 2 * x[i];", known);
    EXPECT_NE(renamed_given[9].hash, a[9].hash) << "n is the skeleton's; m is not";
    EXPECT_NE(tokenize_source("threadIdx.x", {})[0].hash, tokenize_source("threadIdy.x", {})[0].hash);
    EXPECT_NE(tokenize_source("v.x", {})[2].hash, tokenize_source("v.y", {})[2].hash);
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
