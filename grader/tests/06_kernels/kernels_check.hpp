#pragma once
// Test helpers for lesson06: inputs of float or double with their host
// copies, element-by-element checks whose failure messages name the usual
// mistake (the vector loop's tail left out, one block's worth written, the
// threads stopping short of n, a write past the end), and a count of the
// kernels a call launches.
//
// Everything these helpers read back of the code under test is evidence
// (course/testing/evidence.hpp): output::result() and the checks of what lies
// around an output or an input, the kernel count, the outcome of a call that
// must throw.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "course/compare.hpp"  // course::with_commas, for messages
#include "course/device_array.hpp"
#include "course/device_span.hpp"
#include "course/testing/buffers.hpp"

namespace lesson06::testing {

// Unit roundoff: half the distance from 1 to the next number, the largest
// relative error of one correctly rounded operation (2^-24 for float, 2^-53
// for double).
template <class T>
constexpr double unit_roundoff() {
    return sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
}

// An input: the values on the host (for the reference) and the same values on
// the device (for the student's code).
template <class T>
struct input {
    std::string name;
    std::vector<T> host;
    course::testing::guard_paged_array<T> device;  // ends where mapped memory ends

    course::device_span<const T> view() const { return device.view(); }
    // count elements from `offset`: a view that starts mid-allocation.
    course::device_span<const T> view(std::size_t offset, std::size_t count) const {
        return device.view().subspan(offset, count);
    }
};

// n values uniform in [lo, hi), drawn from this test's seed and `name`. The
// double version has random bits below float's precision too, so a result
// computed in float does not pass for double.
template <class T>
input<T> uniform_input(std::size_t n, const std::string& name, double lo = -1.0, double hi = 1.0);

// n whole numbers from lo to hi (both included). Sums of a few million of
// them are exact in float (every partial sum is a whole number below 2^24), so
// any right summation order gives exactly the right answer.
template <class T>
input<T> integer_input(std::size_t n, const std::string& name, int lo, int hi);

// n int32 values from lo to hi (both included), every bit drawn (those of
// integer_input come from a float's 24): values whose products and sums an
// int computes exactly and a float would round.
input<std::int32_t> int32_input(std::size_t n, const std::string& name, std::int32_t lo, std::int32_t hi);

// An output of n elements for the code under test, poisoned with NaN, with a
// guard band after it. With an offset it starts `offset` elements into its
// allocation (so not on a 16-byte boundary unless offset is a multiple of
// 16 / sizeof(T)), and the elements before it are poisoned too.
template <class T>
class output {
public:
    explicit output(std::size_t n, std::size_t offset = 0)
        : n_(n), offset_(offset), storage_(offset + n), start_(storage_.view().data()) {}

    course::device_span<T> view() { return storage_.view().subspan(offset_, n_); }
    std::size_t size() const { return n_; }
    // The n elements, read back: evidence.
    std::vector<T> result() const {
        std::vector<T> all = storage_.to_host();
        all.erase(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(offset_, all.size())));
        return all;
    }
    // Fails if anything before the view's start or after its end was written.
    void expect_untouched_outside(const std::string& what) const;

private:
    std::size_t n_, offset_;
    course::testing::guarded_output<T> storage_;
    const T* start_;  // the allocation's first element, offset_ before the view
};

// Elements of a 1D result, what they should be, and how far each may be off.
struct expectation {
    std::vector<double> value;
    std::vector<double> allowed;  // |actual[i] - value[i]| <= allowed[i]
};

// Compares `actual` (read back from a NaN-poisoned output) with `expected`
// and fails with the first mismatches and the pattern they form. `what` names
// the call ("multiply_add, n = 129, 128 threads per block"). Elements never
// written are recognised by their NaN, including the "tail" left by a loop over
// 16-byte packs (16 / sizeof(T) elements each); `explain` may add a diagnosis
// of its own for wrong values (it gets the index of the first wrong element).
// `threads_per_block`, when the test chose it (0: unknown): a result that
// stops after one block's worth of elements is then read as one.
template <class T>
void expect_elements(const std::vector<T>& actual, const expectation& expected,
                     const std::string& what,
                     const std::function<std::string(std::size_t)>& explain = {},
                     std::size_t threads_per_block = 0);

// Nothing was written after the output's end.
template <class T>
void expect_guard_untouched(const course::testing::guarded_output<T>& output, const std::string& what);

// The input's device copy still holds its values.
template <class T>
void expect_unchanged(const input<T>& x);

// One number computed on the device (a reduction), against a float64
// reference: fails unless |actual - expected| <= allowed, with `advice` added.
void expect_close(double actual, double expected, double allowed, const std::string& what,
                  const std::string& advice = "");

// How many kernels `work` launches on the stream it is given: the call is
// captured into a CUDA graph (nothing runs) and its kernel nodes counted. The
// count is evidence.
std::size_t kernels_launched(const std::function<void(cudaStream_t)>& work);

// Calls `call` (then waits for the GPU) and fails unless it throws
// std::invalid_argument; `what` names the call in the failure message.
void expect_invalid_argument(const std::function<void()>& call, const std::string& what);

}  // namespace lesson06::testing
