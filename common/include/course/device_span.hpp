#pragma once
// device_span<T>: a non-owning view of device memory (pointer + length), the
// type kernels take by value. It is what std::span is on the host: cheap to
// copy, knows its size, so a kernel can bounds-check with `i < c.size()`.
// device_span<const T> marks inputs the kernel must not write.
#include <cstddef>
#include <type_traits>

#include "course/config.hpp"

namespace course {

template <class T>
class device_span {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;

    device_span() = default;
    COURSE_HD constexpr device_span(T* data, size_type size) noexcept : data_(data), size_(size) {}

    // A span of T converts to a span of const T (never the other way).
    template <class U, class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
    COURSE_HD constexpr device_span(device_span<U> other) noexcept
        : data_(other.data()), size_(other.size()) {}

    COURSE_HD constexpr T* data() const noexcept { return data_; }
    COURSE_HD constexpr size_type size() const noexcept { return size_; }
    COURSE_HD constexpr size_type size_bytes() const noexcept { return size_ * sizeof(T); }
    COURSE_HD constexpr bool empty() const noexcept { return size_ == 0; }

    // Unchecked, like std::span: the kernel's own bounds check comes first.
    COURSE_HD constexpr T& operator[](size_type i) const noexcept { return data_[i]; }

    COURSE_HD constexpr T* begin() const noexcept { return data_; }
    COURSE_HD constexpr T* end() const noexcept { return data_ + size_; }

    COURSE_HD constexpr device_span first(size_type count) const noexcept { return {data_, count}; }
    COURSE_HD constexpr device_span subspan(size_type offset, size_type count) const noexcept {
        return {data_ + offset, count};
    }

private:
    T* data_ = nullptr;
    size_type size_ = 0;
};

}  // namespace course
