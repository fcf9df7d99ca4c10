#include "course/testing/expect_2d.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace course::testing {

namespace {

std::size_t cdiv(std::size_t n, std::size_t d) { return (n + d - 1) / d; }

// ---------------------------------------------------------------------------
// Known mistakes, replayed on the host.
//
// Each mistake is a small model of a kernel and its launch: the grid it
// launches and, for every thread, the offset from the matrix's first element
// it stores to (or none). Replaying a model gives how often each element is
// written; a mistake explains a failure when that pattern matches what the
// GPU left behind.

struct grid_2d {
    std::size_t x = 0, y = 0;  // blocks along the columns, along the rows
};

// One thread: its index in its block and in the whole grid.
struct thread_2d {
    std::size_t tx, ty;  // threadIdx
    std::size_t gx, gy;  // blockIdx * blockDim + threadIdx
};

constexpr std::size_t no_store = std::numeric_limits<std::size_t>::max();

// Where a right kernel stores (row, col): inside the matrix only.
std::size_t at(std::size_t row, std::size_t col, const layout_2d& m) {
    return row < m.rows && col < m.cols ? row * m.pitch + col : no_store;
}

grid_2d covering(const layout_2d& m, launch_2d l) {
    return {cdiv(m.cols, l.block_x), cdiv(m.rows, l.block_y)};
}

struct mistake {
    grid_2d (*grid)(const layout_2d&, launch_2d);
    std::size_t (*store)(const thread_2d&, const layout_2d&, launch_2d);
    std::string (*explain)(const layout_2d&, launch_2d);
};

const mistake right_kernel{
    covering,
    [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.gy, t.gx, m); },
    nullptr};

// In the order their explanations are listed when several fit.
const mistake known_mistakes[] = {
    {// row from x, column from y
     covering, [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.gx, t.gy, m); },
     [](const layout_2d& m, launch_2d) {
         return fmt::format(
             "rows and columns swapped: threadIdx.x and blockIdx.x run along a row, so they give "
             "the column. Use col = blockIdx.x * blockDim.x + threadIdx.x and row = blockIdx.y * "
             "blockDim.y + threadIdx.y, with grid.x covering the {} columns and grid.y the {} rows",
             m.cols, m.rows);
     }},
    {// grid.x sized from the rows, grid.y from the columns
     [](const layout_2d& m, launch_2d l) -> grid_2d {
         return {cdiv(m.rows, l.block_x), cdiv(m.cols, l.block_y)};
     },
     [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.gy, t.gx, m); },
     [](const layout_2d& m, launch_2d l) {
         return fmt::format(
             "rows and columns swapped in the grid: grid.x must cover the {} columns and grid.y the "
             "{} rows: grid = dim3((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y) "
             "= ({}, {})",
             m.cols, m.rows, cdiv(m.cols, l.block_x), cdiv(m.rows, l.block_y));
     }},
    {// bounds check compares the row with cols and the column with rows
     covering,
     [](const thread_2d& t, const layout_2d& m, launch_2d) {
         return t.gy < m.cols && t.gx < m.rows ? t.gy * m.pitch + t.gx : no_store;
     },
     [](const layout_2d& m, launch_2d) {
         return fmt::format(
             "rows and columns swapped in the bounds check: the row must be below a.rows() ({}) "
             "and the column below a.cols() ({})",
             m.rows, m.cols);
     }},
    {// only threadIdx on both axes
     covering, [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.ty, t.tx, m); },
     [](const layout_2d&, launch_2d) -> std::string {
         return "only the first block did any work: the index uses threadIdx alone (the PyCUDA "
                "seed's threadIdx.x + threadIdx.y * 4 works only because its matrix fits in one "
                "block). Add blockIdx * blockDim on both axes, and launch enough blocks on both";
     }},
    {// blockIdx.y ignored
     covering, [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.ty, t.gx, m); },
     [](const layout_2d& m, launch_2d l) {
         return fmt::format(
             "only the first row of blocks did any work: the row index ignores blockIdx.y (row = "
             "blockIdx.y * blockDim.y + threadIdx.y), or the grid has a single row of blocks (grid.y "
             "= (rows + block.y - 1) / block.y = {})",
             cdiv(m.rows, l.block_y));
     }},
    {// blockIdx.x ignored
     covering, [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.gy, t.tx, m); },
     [](const layout_2d& m, launch_2d l) {
         return fmt::format(
             "only the first column of blocks did any work: the column index ignores blockIdx.x "
             "(col = blockIdx.x * blockDim.x + threadIdx.x), or the grid has a single column of "
             "blocks (grid.x = (cols + block.x - 1) / block.x = {})",
             cdiv(m.cols, l.block_x));
     }},
    {// grid.y rounded down
     [](const layout_2d& m, launch_2d l) -> grid_2d {
         return {cdiv(m.cols, l.block_x), m.rows / l.block_y};
     },
     [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.gy, t.gx, m); },
     [](const layout_2d& m, launch_2d l) {
         return fmt::format(
             "the last, partial row of blocks did not run: {} rows need {} rows of blocks {} tall, "
             "so round up: grid.y = (rows + block.y - 1) / block.y",
             m.rows, cdiv(m.rows, l.block_y), l.block_y);
     }},
    {// grid.x rounded down
     [](const layout_2d& m, launch_2d l) -> grid_2d {
         return {m.cols / l.block_x, cdiv(m.rows, l.block_y)};
     },
     [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.gy, t.gx, m); },
     [](const layout_2d& m, launch_2d l) {
         return fmt::format(
             "the last, partial column of blocks did not run: {} columns need {} columns of blocks "
             "{} wide, so round up: grid.x = (cols + block.x - 1) / block.x",
             m.cols, cdiv(m.cols, l.block_x), l.block_x);
     }},
    {// both rounded down
     [](const layout_2d& m, launch_2d l) -> grid_2d {
         return {m.cols / l.block_x, m.rows / l.block_y};
     },
     [](const thread_2d& t, const layout_2d& m, launch_2d) { return at(t.gy, t.gx, m); },
     [](const layout_2d& m, launch_2d l) {
         return fmt::format(
             "the last, partial row and column of blocks did not run: round the grid up on both "
             "axes, grid = dim3((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y) = "
             "({}, {})",
             cdiv(m.cols, l.block_x), cdiv(m.rows, l.block_y));
     }},
    {// linear index with the block's width
     covering,
     [](const thread_2d& t, const layout_2d& m, launch_2d l) {
         return t.gy < m.rows && t.gx < m.cols ? t.gy * l.block_x + t.gx : no_store;
     },
     [](const layout_2d& m, launch_2d l) {
         return fmt::format(
             "the linear index uses the block's width instead of the matrix's: element (row, col) "
             "is at row * a.pitch() + col (here row * {} + col), not row * blockDim.x + col (row * "
             "{} + col). The PyCUDA seed's threadIdx.y * 4 is right only because its block and its "
             "matrix are both 4 wide",
             m.pitch, l.block_x);
     }},
    {// pitch ignored: rows taken as cols elements apart
     covering,
     [](const thread_2d& t, const layout_2d& m, launch_2d) {
         return t.gy < m.rows && t.gx < m.cols ? t.gy * m.cols + t.gx : no_store;
     },
     [](const layout_2d& m, launch_2d) {
         return fmt::format(
             "the pitch is ignored: the rows of this matrix start {} elements apart, not {} (its "
             "width): element (row, col) is at row * a.pitch() + col, which a(row, col) computes "
             "for you",
             m.pitch, m.cols);
     }},
    {// only the row is checked
     covering,
     [](const thread_2d& t, const layout_2d& m, launch_2d) {
         return t.gy < m.rows ? t.gy * m.pitch + t.gx : no_store;
     },
     [](const layout_2d&, launch_2d) -> std::string {
         return "threads past the last column stored into the next row: check col < a.cols() as "
                "well as row < a.rows()";
     }},
};

// How often a kernel with this model writes each element (capped at 3), or
// nothing when the model's launch could not run (a grid of 0 blocks fails)
// or is too large to replay quickly.
std::optional<std::vector<std::uint8_t>> replay(const mistake& model, const layout_2d& m,
                                                launch_2d l) {
    const grid_2d grid = model.grid(m, l);
    const std::size_t threads_x = grid.x * l.block_x, threads_y = grid.y * l.block_y;
    if (threads_x == 0 || threads_y == 0) return std::nullopt;
    if (threads_x * threads_y > (std::size_t{1} << 27)) return std::nullopt;
    std::vector<std::uint8_t> writes(m.rows * m.cols, 0);
    const std::size_t footprint = m.rows * m.pitch;
    for (std::size_t gy = 0; gy < threads_y; ++gy) {
        for (std::size_t gx = 0; gx < threads_x; ++gx) {
            const thread_2d t{gx % l.block_x, gy % l.block_y, gx, gy};
            const std::size_t offset = model.store(t, m, l);
            if (offset >= footprint) continue;  // outside the matrix: the guards see it
            const std::size_t row = offset / m.pitch, col = offset % m.pitch;
            if (col >= m.cols) continue;  // padding: the guard check sees it
            std::uint8_t& w = writes[row * m.cols + col];
            if (w < 3) ++w;
        }
    }
    return writes;
}

// What the test could see of `writes` writes: out of place, only written or
// not; in place, also once or more than once.
int visible(std::uint8_t writes, update_kind kind) {
    if (kind == update_kind::out_of_place) return writes > 0 ? 1 : 0;
    return writes > 1 ? 2 : writes;
}

// Could a kernel that writes each element `predicted` times have left `seen`?
bool consistent(touch seen, std::uint8_t predicted, update_kind kind) {
    if (predicted == 0) return seen == touch::unwritten;
    if (kind == update_kind::out_of_place) return seen != touch::unwritten;
    if (predicted == 1) return seen == touch::right;
    // Two threads updating one element race: the result may look updated
    // once, twice or neither, so any written value fits.
    return seen != touch::unwritten;
}

// The poison of guarded_matrix: every bit set.
bool is_poison(float x) {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &x, sizeof x);
    for (const unsigned char b : bytes)
        if (b != 0xFF) return false;
    return true;
}

std::string row_col(std::size_t index, std::size_t cols) {
    return fmt::format("(row {}, col {})", with_commas(index / cols), with_commas(index % cols));
}

// A fallback when no known mistake fits: whole rows or columns at the end
// never written point at the grid.
std::string describe_unwritten_edge(const std::vector<touch>& touches, const layout_2d& m) {
    std::size_t first_row = m.rows, first_col = m.cols;
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < m.cols; ++c)
            if (touches[r * m.cols + c] == touch::unwritten) {
                first_row = std::min(first_row, r);
                first_col = std::min(first_col, c);
            }
    auto all_from = [&](bool by_row, std::size_t from) {
        for (std::size_t r = 0; r < m.rows; ++r)
            for (std::size_t c = 0; c < m.cols; ++c) {
                const bool inside = by_row ? r >= from : c >= from;
                if (inside != (touches[r * m.cols + c] == touch::unwritten)) return false;
            }
        return true;
    };
    if (first_row < m.rows && all_from(true, first_row))
        return fmt::format("rows from {} on were never written: does grid.y cover all {} rows?",
                           with_commas(first_row), with_commas(m.rows));
    if (first_col < m.cols && all_from(false, first_col))
        return fmt::format("columns from {} on were never written: does grid.x cover all {} columns?",
                           with_commas(first_col), with_commas(m.cols));
    return {};
}

}  // namespace

std::string diagnose_2d(const std::vector<touch>& touches, const layout_2d& layout,
                        launch_2d launch, update_kind kind, const std::string& verb) {
    const std::size_t n = layout.rows * layout.cols;
    if (n == 0 || touches.size() != n || launch.block_x == 0 || launch.block_y == 0 ||
        layout.pitch < layout.cols)
        return {};
    std::size_t unwritten = 0, twice = 0, wrong = 0;
    for (const touch t : touches) {
        unwritten += t == touch::unwritten;
        twice += t == touch::twice;
        wrong += t == touch::wrong;
    }
    if (unwritten + twice + wrong == 0) return {};
    if (unwritten == n)
        return kind == update_kind::in_place
                   ? fmt::format("no element was {0}: every element still holds its original value. "
                                 "Was the kernel launched, and does each thread store its result?",
                                 verb)
                   : "no element was written: was the kernel launched, with at least one block on "
                     "each axis, and does each thread store its result?";

    // Which known mistakes leave exactly this pattern? A mistake that writes
    // what the right kernel writes cannot explain a failure, so it is left out.
    const auto right = replay(right_kernel, layout, launch);
    std::vector<std::string> fits;
    for (const mistake& m : known_mistakes) {
        const auto writes = replay(m, layout, launch);
        if (!writes || !right) continue;
        bool same_as_right = true, fits_all = true;
        for (std::size_t i = 0; i < n && fits_all; ++i) {
            same_as_right = same_as_right && visible((*writes)[i], kind) == visible((*right)[i], kind);
            fits_all = consistent(touches[i], (*writes)[i], kind);
        }
        if (fits_all && !same_as_right) fits.push_back(m.explain(layout, launch));
    }
    if (fits.size() == 1) return fits.front();
    if (!fits.empty()) {
        std::string text = "one of these mistakes leaves exactly this pattern:";
        for (std::size_t i = 0; i < fits.size() && i < 3; ++i) text += "\n  - " + fits[i];
        return text;
    }

    if (unwritten == 0 && twice == 0)
        return "every element was written, but some values are wrong: check the arithmetic, and "
               "that each thread reads and writes the same element";
    if (twice > 0 && unwritten == 0 && wrong == 0)
        return fmt::format(
            "{} element(s) were {} twice: two threads reached the same element. The map from a "
            "thread to its (row, col) must be one-to-one (and block.z must be 1)",
            with_commas(twice), verb);
    if (twice == 0 && wrong == 0)
        if (std::string edge = describe_unwritten_edge(touches, layout); !edge.empty()) return edge;
    return fmt::format(
        "{} element(s) were never written{}{}: check how a thread's (row, col) comes from blockIdx, "
        "blockDim and threadIdx, and that the grid covers every row and column",
        with_commas(unwritten),
        twice ? fmt::format(", {} were {} twice", with_commas(twice), verb) : std::string{},
        wrong ? fmt::format(", {} hold other wrong values", with_commas(wrong)) : std::string{});
}

std::string describe_guard_writes(const guard_report& g, const layout_2d& m) {
    std::vector<std::string> parts;
    if (g.padding)
        parts.push_back(fmt::format(
            "wrote outside the matrix: {} element(s) in the padding after the rows' ends were "
            "changed, the first at row {}, column {} (the matrix has {} columns; its rows start {} "
            "elements apart)\nthreads whose column is not below a.cols() must not store: guard "
            "with if (row < a.rows() && col < a.cols())",
            with_commas(g.padding), with_commas(g.padding_row), with_commas(g.padding_col),
            with_commas(m.cols), with_commas(m.pitch)));
    if (g.after) {
        // Where the element would be if the matrix went on past its last row.
        const std::string where =
            m.pitch == 0 ? std::string{}
                         : fmt::format(" (where row {}, column {} would be)",
                                       with_commas(m.rows + g.first_after / m.pitch),
                                       with_commas(g.first_after % m.pitch));
        const std::string first = g.first_after == 0
                                      ? std::string("immediately after it")
                                      : with_commas(g.first_after) + " element(s) after it";
        parts.push_back(fmt::format(
            "wrote past the end: {} element(s) after the last row were changed, the first {}{}\n"
            "threads outside the matrix must not store: guard with "
            "if (row < a.rows() && col < a.cols())",
            with_commas(g.after), first, where));
    }
    if (g.before)
        parts.push_back(fmt::format(
            "wrote before the first element: {} element(s) before row 0 were changed, the nearest "
            "{} element(s) before it: an index went below zero",
            with_commas(g.before), with_commas(g.first_before)));
    std::string text;
    for (const auto& p : parts) text += (text.empty() ? "" : "\n") + p;
    return text;
}

namespace {

// Collects where a result differs and turns it into one failure message.
class mismatch_report {
public:
    mismatch_report(const layout_2d& m, update_kind kind, std::string verb)
        : layout_(m), kind_(kind), verb_(std::move(verb)), touches_(m.rows * m.cols, touch::right) {}

    void add(std::size_t i, touch t, double expected, float actual) {
        touches_[i] = t;
        if (t == touch::right) return;
        if (count_++ == 0) {
            first_ = i;
            first_expected_ = expected;
            first_actual_ = actual;
            first_touch_ = t;
        }
        const std::size_t r = i / layout_.cols, c = i % layout_.cols;
        min_row_ = std::min(min_row_, r);
        max_row_ = std::max(max_row_, r);
        min_col_ = std::min(min_col_, c);
        max_col_ = std::max(max_col_, c);
        ++by_kind_[static_cast<int>(t)];
    }

    void fail_if_wrong(launch_2d launch) const {
        if (count_ == 0) return;
        const std::size_t n = touches_.size();
        std::string message = fmt::format("element {}: expected {:.6g}, got {:.6g}{}",
                                          row_col(first_, layout_.cols), first_expected_,
                                          first_actual_, note(first_touch_, first_actual_));
        std::vector<std::string> kinds;
        if (by_kind_[0])
            kinds.push_back(fmt::format("{} never {}", with_commas(by_kind_[0]),
                                        kind_ == update_kind::in_place ? verb_ : "written"));
        if (by_kind_[2]) kinds.push_back(fmt::format("{} {} twice", with_commas(by_kind_[2]), verb_));
        if (by_kind_[3]) kinds.push_back(fmt::format("{} with other values", with_commas(by_kind_[3])));
        message += fmt::format("\n{} of {} right ({}); the wrong ones lie in rows {}..{}, columns {}..{}",
                               with_commas(n - count_), with_commas(n), fmt::join(kinds, ", "),
                               with_commas(min_row_), with_commas(max_row_), with_commas(min_col_),
                               with_commas(max_col_));
        if (const auto why = diagnose_2d(touches_, layout_, launch, kind_, verb_); !why.empty())
            message += "\n" + why;
        ADD_FAILURE() << message;
    }

private:
    // What a wrong value probably means, after "got ...".
    std::string note(touch t, float actual) const {
        switch (t) {
            case touch::unwritten:
                return kind_ == update_kind::in_place
                           ? fmt::format(" (its original value: never {})", verb_)
                           : std::string(" (never written)");
            case touch::twice: return fmt::format(" ({} twice)", verb_);
            case touch::wrong:
                // A NaN other than the poison was computed from a NaN: often
                // one read from outside the input (its padding or guards).
                return std::isnan(actual)
                           ? std::string(" (a NaN computed from a NaN: was the input read "
                                         "outside its rows, in padding or guard?)")
                           : std::string{};
            default: return {};
        }
    }

    layout_2d layout_;
    update_kind kind_;
    std::string verb_;
    std::vector<touch> touches_;
    std::size_t count_ = 0, first_ = 0;
    double first_expected_ = 0;
    float first_actual_ = 0;
    touch first_touch_ = touch::right;
    std::size_t min_row_ = std::numeric_limits<std::size_t>::max(), max_row_ = 0;
    std::size_t min_col_ = std::numeric_limits<std::size_t>::max(), max_col_ = 0;
    std::size_t by_kind_[4] = {0, 0, 0, 0};
};

}  // namespace

void expect_matches_2d(const guarded_matrix<float>& out, const std::vector<double>& expected,
                       tolerance tol, launch_2d launch) {
    const std::vector<float> actual = out.to_host();
    ASSERT_EQ(actual.size(), expected.size()) << "expected values for every element of the matrix";
    mismatch_report report(out.layout(), update_kind::out_of_place, "written");
    for (std::size_t i = 0; i < actual.size(); ++i) {
        // Only the poison itself means never written: a NaN the GPU computed
        // (from a NaN it read) has other bits, and was written.
        const touch t = within(actual[i], expected[i], tol) ? touch::right
                        : is_poison(actual[i])               ? touch::unwritten
                                                             : touch::wrong;
        report.add(i, t, expected[i], actual[i]);
    }
    report.fail_if_wrong(launch);
}

void expect_updated_in_place(const guarded_matrix<float>& a, const std::vector<float>& original,
                             const in_place_update& update, tolerance tol, launch_2d launch) {
    expect_updated_in_place(a.to_host(), a.layout(), original, update, tol, launch);
}

void expect_updated_in_place(const std::vector<float>& actual, const layout_2d& layout,
                             const std::vector<float>& original, const in_place_update& update,
                             tolerance tol, launch_2d launch) {
    ASSERT_EQ(actual.size(), layout.rows * layout.cols) << "a value for every element of the matrix";
    ASSERT_EQ(original.size(), actual.size()) << "original values for every element of the matrix";
    mismatch_report report(layout, update_kind::in_place, update.verb);
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double once = update.apply(original[i]);
        touch t = touch::wrong;
        if (within(actual[i], once, tol))
            t = touch::right;
        else if (std::memcmp(&actual[i], &original[i], sizeof(float)) == 0)
            t = touch::unwritten;
        else if (within(actual[i], update.apply(once), tol))
            t = touch::twice;
        report.add(i, t, once, actual[i]);
    }
    report.fail_if_wrong(launch);
}

void expect_guard_untouched(const guarded_matrix<float>& matrix) {
    const guard_report report = matrix.guard_writes();
    if (report.clean()) return;
    ADD_FAILURE() << describe_guard_writes(report, matrix.layout());
}

void expect_unchanged(const guarded_matrix<float>& input, const std::vector<float>& values,
                      const std::string& name) {
    const std::size_t first = input.first_difference(values);
    if (first < values.size())
        ADD_FAILURE() << fmt::format(
            "input {} was modified (first at {}): inputs are read-only, write only the output",
            name, row_col(first, input.cols()));
    const guard_report guard = input.guard_writes();
    if (!guard.clean())
        ADD_FAILURE() << fmt::format("input {} had memory around it written:\n{}", name,
                                     describe_guard_writes(guard, input.layout()));
}

}  // namespace course::testing
