#pragma once
// guarded_matrix<T>: a rows x cols matrix on the device that makes 2D
// mistakes visible. It sits inside a larger allocation poisoned with NaN (all
// bits set):
//
//     [ guard before ][ row 0 | padding ][ row 1 | padding ] ... [ guard after ]
//
// Rows start `pitch` elements apart; with pitch > cols each row is followed by
// padding, as in memory from cudaMallocPitch. A write to the guard before,
// the padding or the guard after lands outside the matrix, and guard_writes()
// finds it. Filled with values (fill) it is the input and output of an
// in-place kernel; left poisoned, an element still NaN afterwards was never
// written. An input can instead end where mapped memory ends
// (after_the_matrix::unmapped): a kernel that reads past its last row faults.
// Either way the storage ends on unmapped memory, and the grader names the
// element a faulting read asked for ("A[64][3]") from the input map
// (guard_paged.hpp) when the matrix has a name.
//
// What to_host(), guard_writes() and first_difference() read back is
// evidence (evidence.hpp): it passes through observe().
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "course/device_array.hpp"
#include "course/device_span_2d.hpp"
#include "course/error.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/guard_paged.hpp"

namespace course::testing {

// The shape of a matrix in memory: rows x cols, rows `pitch` elements apart.
struct layout_2d {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::size_t pitch = 0;
};

// Where a kernel wrote outside its matrix.
struct guard_report {
    std::size_t before = 0;        // elements changed in the guard before row 0
    std::size_t padding = 0;       // ... in the padding after a row's last column
    std::size_t after = 0;         // ... in the guard after the last row
    std::size_t first_before = 0;  // the closest to the matrix: 1 is the element just before it
    std::size_t padding_row = 0;   // the first padding element changed: its row
    std::size_t padding_col = 0;   // ... and its column (cols <= col < pitch)
    std::size_t first_after = 0;   // the first changed element after rows * pitch, counted from there
    bool clean() const { return before == 0 && padding == 0 && after == 0; }
};

// What lies after the matrix's last row (see the header comment).
enum class after_the_matrix {
    poison,    // a guard band of 32 rows of NaN: a write there is found by guard_writes()
    unmapped,  // nothing: the matrix ends where mapped memory ends (guard_paged.hpp),
               // so a read past it faults; for inputs, which nothing should write
};

template <class T>
class guarded_matrix {
public:
    // pitch 0 means dense (pitch == cols). The poisoned guard after the
    // matrix holds 32 rows, so that a missing row check with blocks up to 32
    // rows tall still lands in it; the guard before holds at least 1024
    // elements.
    guarded_matrix(std::size_t rows, std::size_t cols, std::size_t pitch = 0,
                   after_the_matrix after = after_the_matrix::poison, std::string_view name = {})
        : layout_{rows, cols, pitch == 0 ? cols : pitch},
          before_(std::max<std::size_t>(1024, layout_.pitch)),
          after_(after == after_the_matrix::unmapped ? 0 : std::max<std::size_t>(1024, 32 * layout_.pitch)),
          storage_(before_ + rows * layout_.pitch + after_) {
        if (layout_.pitch < cols) throw std::invalid_argument("guarded_matrix: pitch < cols");
        storage_.fill_bytes(0xFF);
        // Unmapped memory follows the matrix (unmapped) or its guard band (poison).
        if (!name.empty() && rows * cols > 0)
            note_guarded_input({name, first(), sizeof(T), rows, cols, layout_.pitch, true, storage_.guard()});
    }

    device_span_2d<T> view() { return {first(), layout_.rows, layout_.cols, layout_.pitch}; }
    device_span_2d<const T> view() const {
        return {first(), layout_.rows, layout_.cols, layout_.pitch};
    }
    const layout_2d& layout() const { return layout_; }
    std::size_t rows() const { return layout_.rows; }
    std::size_t cols() const { return layout_.cols; }
    std::size_t pitch() const { return layout_.pitch; }

    // Copies rows x cols dense row-major values into the matrix; the padding
    // and the guards keep their poison.
    void fill(const std::vector<T>& values) {
        if (values.size() != layout_.rows * layout_.cols)
            throw std::invalid_argument("guarded_matrix::fill: wrong number of values");
        if (values.empty()) return;
        CUDA_CHECK(cudaMemcpy2D(first(), layout_.pitch * sizeof(T), values.data(),
                                layout_.cols * sizeof(T), layout_.cols * sizeof(T), layout_.rows,
                                cudaMemcpyHostToDevice));
    }

    // The rows x cols elements, dense and row-major (no padding): evidence.
    std::vector<T> to_host() const { return observe_same_size("matrix", read()); }

    // The first element (row-major, r * cols + c) that no longer holds
    // values[r * cols + c] bit for bit; rows * cols when none changed. Only
    // this index is evidence, not the whole matrix.
    std::size_t first_difference(const std::vector<T>& values) const {
        const std::vector<T> now = read();
        std::size_t first = 0;
        while (first < now.size() && first < values.size() &&
               std::memcmp(&now[first], &values[first], sizeof(T)) == 0)
            ++first;
        return observe("first changed input element", first);
    }

    // Every element outside the matrix that no longer holds the poison: evidence.
    guard_report guard_writes() const { return observe("guard writes", find_guard_writes()); }

private:
    std::vector<T> read() const {
        std::vector<T> host(layout_.rows * layout_.cols);
        if (host.empty()) return host;
        CUDA_CHECK(cudaMemcpy2D(host.data(), layout_.cols * sizeof(T), first(),
                                layout_.pitch * sizeof(T), layout_.cols * sizeof(T), layout_.rows,
                                cudaMemcpyDeviceToHost));
        return host;
    }

    guard_report find_guard_writes() const {
        const std::vector<T> all = storage_.to_host();
        const auto* bytes = reinterpret_cast<const unsigned char*>(all.data());
        auto changed = [&](std::size_t i) {
            for (std::size_t b = 0; b < sizeof(T); ++b)
                if (bytes[i * sizeof(T) + b] != 0xFF) return true;
            return false;
        };
        guard_report report;
        for (std::size_t i = before_; i-- > 0;) {  // nearest the matrix first
            if (!changed(i)) continue;
            if (report.before++ == 0) report.first_before = before_ - i;
        }
        for (std::size_t r = 0; r < layout_.rows; ++r) {
            for (std::size_t c = layout_.cols; c < layout_.pitch; ++c) {
                if (!changed(before_ + r * layout_.pitch + c)) continue;
                if (report.padding++ == 0) {
                    report.padding_row = r;
                    report.padding_col = c;
                }
            }
        }
        const std::size_t end = before_ + layout_.rows * layout_.pitch;
        for (std::size_t i = end; i < all.size(); ++i) {
            if (!changed(i)) continue;
            if (report.after++ == 0) report.first_after = i - end;
        }
        return report;
    }

    T* first() { return storage_.data() + before_; }
    const T* first() const { return storage_.data() + before_; }

    layout_2d layout_;
    std::size_t before_, after_;
    guard_paged_array<T> storage_;  // the unmapped guard follows the last element
};

}  // namespace course::testing
