#pragma once
// Test buffers that make mistakes visible.
//
// guarded_output<T>: an output of n elements poisoned with NaN (all bits set)
// before the student's code runs, followed by a guard band of the same
// poison. An element still NaN afterwards was never written; a guard element
// that changed was written past the end.
//
// test_input<T>: random values on the host and the same values on the
// device, so a test can compute the reference and check the input was not
// modified. The device copy ends where mapped memory ends (guard_paged.hpp):
// a kernel that reads past it faults, even if its answer comes out right.
#include <cstddef>
#include <string>
#include <vector>

#include "course/device_array.hpp"
#include "course/error.hpp"
#include "course/random.hpp"
#include "course/testing/evidence.hpp"
#include "course/testing/guard_paged.hpp"

namespace course::testing {

template <class T>
class guarded_output {
public:
    explicit guarded_output(std::size_t n, std::size_t guard = 1024)
        : n_(n), guard_(guard), storage_(n + guard) {
        storage_.fill_bytes(0xFF);
    }

    device_span<T> view() { return storage_.view().first(n_); }
    std::size_t size() const { return n_; }
    std::size_t guard() const { return guard_; }

    // What the code under test left in the output: evidence (evidence.hpp).
    std::vector<T> to_host() const {
        std::vector<T> host(n_);
        // The judge uses the recorded output, not the reference's.
        if (!judging()) storage_.to_host(host.data(), n_);
        return observe_same_size("output", std::move(host));
    }
    // Index (after the end) of every guard element that no longer holds the
    // poison: evidence too.
    std::vector<std::size_t> guard_writes() const;

private:
    std::size_t n_, guard_;
    device_array<T> storage_;
};

template <class T>
std::vector<std::size_t> guarded_output<T>::guard_writes() const {
    // Only the guard comes back: for 2^24 elements, copying the output again
    // would double what the test reads from the GPU.
    std::vector<T> guard(guard_);
    if (guard_) CUDA_CHECK(cudaMemcpy(guard.data(), storage_.data() + n_, guard_ * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<std::size_t> written;
    const auto* bytes = reinterpret_cast<const unsigned char*>(guard.data());
    for (std::size_t i = 0; i < guard_; ++i) {
        for (std::size_t b = 0; b < sizeof(T); ++b) {
            if (bytes[i * sizeof(T) + b] != 0xFF) {
                written.push_back(i);
                break;
            }
        }
    }
    return observe("guard writes", std::move(written));
}

template <class T>
struct test_input {
    std::string name;
    std::vector<T> host;
    guard_paged_array<T> device;

    device_span<const T> view() const { return device.view(); }
};

// n floats in [-1, 1), drawn from this test's seed and the input's name, on
// guard-paged memory with the guard on `side` (guard_paged.hpp).
test_input<float> random_input(std::size_t n, const std::string& name, guard_side side = guard_side::after);

}  // namespace course::testing
