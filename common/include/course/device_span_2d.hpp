#pragma once
// device_span_2d<T>: a non-owning view of a rows x cols matrix in device
// memory, stored row-major: element (row, col) lives at
//
//     data()[row * pitch() + col]
//
// pitch() is the distance from the start of one row to the start of the
// next, in elements. It equals cols() for a dense matrix and is larger for
// pitched memory (cudaMallocPitch pads every row so that the next one starts
// on an aligned address). Like device_span, it is what kernels take by value;
// device_span_2d<const T> marks a matrix the kernel must not write.
#include <cstddef>
#include <type_traits>

#include "course/config.hpp"
#include "course/device_span.hpp"

namespace course {

template <class T>
class device_span_2d {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;

    device_span_2d() = default;

    // A dense matrix: each row starts `cols` elements after the one before.
    COURSE_HD constexpr device_span_2d(T* data, size_type rows, size_type cols) noexcept
        : device_span_2d(data, rows, cols, cols) {}

    // Rows start `pitch` elements apart (pitch >= cols; the elements between
    // a row's last column and the next row are padding, not part of the view).
    COURSE_HD constexpr device_span_2d(T* data, size_type rows, size_type cols,
                                       size_type pitch) noexcept
        : data_(data), rows_(rows), cols_(cols), pitch_(pitch) {}

    // A view of T converts to a view of const T (never the other way).
    template <class U, class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
    COURSE_HD constexpr device_span_2d(device_span_2d<U> other) noexcept
        : data_(other.data()), rows_(other.rows()), cols_(other.cols()), pitch_(other.pitch()) {}

    COURSE_HD constexpr T* data() const noexcept { return data_; }
    COURSE_HD constexpr size_type rows() const noexcept { return rows_; }
    COURSE_HD constexpr size_type cols() const noexcept { return cols_; }
    // Elements from one row's start to the next (cudaMallocPitch reports bytes).
    COURSE_HD constexpr size_type pitch() const noexcept { return pitch_; }
    COURSE_HD constexpr size_type pitch_bytes() const noexcept { return pitch_ * sizeof(T); }
    // Elements in the view (rows x cols; the padding is not counted).
    COURSE_HD constexpr size_type size() const noexcept { return rows_ * cols_; }
    COURSE_HD constexpr bool empty() const noexcept { return rows_ == 0 || cols_ == 0; }
    COURSE_HD constexpr bool is_dense() const noexcept { return pitch_ == cols_; }

    // Unchecked, like std::span: the kernel's own bounds check comes first.
    COURSE_HD constexpr T& operator()(size_type row, size_type col) const noexcept {
        return data_[row * pitch_ + col];
    }

    // One row as a 1D span of cols() elements.
    COURSE_HD constexpr device_span<T> row(size_type r) const noexcept {
        return {data_ + r * pitch_, cols_};
    }

private:
    T* data_ = nullptr;
    size_type rows_ = 0;
    size_type cols_ = 0;
    size_type pitch_ = 0;
};

}  // namespace course
